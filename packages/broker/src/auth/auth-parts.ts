import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { AccessJwt } from './access-jwt.ts';
import { AccountCredentials } from './account-credentials.ts';
import { Accounts } from './accounts.ts';
import { AgentCredentials } from './agent-credentials.ts';
import { AppGrants } from './app-grants.ts';
import {
  ACCOUNT_REQUEST_SCOPE,
  ACCOUNT_REQUESTS_TABLE,
  AppTokenRequests,
} from './app-token-requests.ts';
import { AppTokens } from './app-tokens.ts';
import type { AuthKeys } from './auth-keys.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';
import { BrowserSessions } from './browser-sessions.ts';
import { ConfirmationCookies } from './confirmation-cookie.ts';
import { authCookies } from './cookies.ts';
import { CsrfTokens } from './csrf.ts';
import { DeveloperKeys } from './developer-keys.ts';
import { EmailLinkSignIn } from './email-link-sign-in.ts';
import { EmailLinks } from './email-links.ts';
import { ExplicitConfirmation } from './explicit-confirmation.ts';
import { Handoffs } from './handoffs.ts';
import { Identities } from './identity.ts';
import { PasswordSignIn } from './password-sign-in.ts';
import { Sessions } from './sessions.ts';

/** The stores and flows behind one app's sign-in, each made once and shared by the others. */
export interface AuthParts {
  readonly accounts: Accounts;
  readonly grants: AppGrants;
  readonly appTokens: AppTokens;
  readonly tokenRequests: AppTokenRequests;
  readonly agentCredentials: AgentCredentials;
  /** `platform login`'s requests, asked at `{base_url}` and approved on this app's pages. */
  readonly accountRequests: AppTokenRequests;
  readonly csrf: CsrfTokens;
  /** The app console's form tokens (their cookie lives on `/`). */
  readonly consoleCsrf: CsrfTokens;
  readonly identities: Identities;
  readonly developer: DeveloperKeys;
  readonly sessions: BrowserSessions;
  readonly links: EmailLinkSignIn;
  readonly explicitConfirmation: ExplicitConfirmation;
  readonly passwords: PasswordSignIn;
  readonly handoffs: Handoffs;
}

/**
 * Builds the parts of one app's sign-in from its keys and stores: `central`, the organisation's
 * store (docs/organisations.md), keeps what is a person's across the organisation's apps
 * (accounts, grants, agent credentials, email links, handoffs); `db` keeps this app's sessions,
 * app access tokens and the requests for them.
 */
export function wireAuthParts(
  db: Database,
  central: Database,
  outbox: Outbox,
  options: ResolvedAuthOptions,
  keys: AuthKeys,
): AuthParts {
  const { clock, appId } = options;
  const accounts = new Accounts(central, db, clock);
  const sessions = new Sessions(db, clock, appId, keys.csrf);
  const jwt = new AccessJwt(Buffer.from(keys.jwt, 'base64url'), appId, clock);
  // Grants are the organisation's, beside its accounts (docs/organisations.md).
  const grants = new AppGrants(central, clock, appId);
  const appTokens = new AppTokens(db, clock, appId);
  const agentCredentials = new AgentCredentials(central, clock);
  const tokenRequests = new AppTokenRequests(db, clock, appId, appTokens, (account, name) =>
    agentCredentials.issue(account, appId, name),
  );
  const accountRequests = accountCredentialRequests(central, clock);
  const csrf = new CsrfTokens(keys.csrf);
  const consoleCsrf = new CsrfTokens(keys.csrf, authCookies.consoleCsrf);
  const identities = new Identities(
    { accounts, sessions, jwt, grants, tokens: appTokens },
    options,
  );
  const developer = new DeveloperKeys(options, keys.csrf);
  const browserSessions = new BrowserSessions({ sessions, accounts, jwt }, options);
  const emailLinks = new EmailLinks(central, clock, appId);
  const confirmations = new ConfirmationCookies(keys.csrf, clock);
  const links = new EmailLinkSignIn(
    { links: emailLinks, accounts, confirmations },
    browserSessions,
    outbox,
    options,
  );
  return {
    accounts,
    grants,
    appTokens,
    tokenRequests,
    agentCredentials,
    accountRequests,
    csrf,
    consoleCsrf,
    identities,
    developer,
    sessions: browserSessions,
    links,
    explicitConfirmation: new ExplicitConfirmation(confirmations, accounts, browserSessions),
    passwords: new PasswordSignIn(accounts, links, browserSessions, options, central),
    handoffs: new Handoffs(central, clock),
  };
}

/**
 * The requests of `platform login` in the organisation's central store, whose approval mints
 * an account credential for the approver: `{base_url}` takes them, any app's pages approve
 * them (the browser is signed in there), both through this.
 */
export function accountCredentialRequests(central: Database, clock: Clock): AppTokenRequests {
  const credentials = new AccountCredentials(central, clock);
  return new AppTokenRequests(
    central,
    clock,
    ACCOUNT_REQUEST_SCOPE,
    undefined,
    (account, name) => credentials.issue(account, name),
    ACCOUNT_REQUESTS_TABLE,
  );
}
