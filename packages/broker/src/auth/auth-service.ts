import type { Database } from '../db/database.ts';
import type { AgentActor } from '../http/broker-env.ts';
import type { Caller } from '../kernel/caller.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { AccessJwt } from './access-jwt.ts';
import { type Account, Accounts } from './accounts.ts';
import { AGENT_CREDENTIAL_PREFIX, AgentCredentials } from './agent-credentials.ts';
import { AppGrants } from './app-grants.ts';
import { AppTokenRequests } from './app-token-requests.ts';
import { AppTokens } from './app-tokens.ts';
import { type AuthKeys, loadAuthKeys } from './auth-keys.ts';
import type {
  AgentAuthority,
  AppVisibility,
  OrgPeer,
  ResolvedAuthOptions,
} from './auth-options.ts';
import { BrowserSessions, type SessionRefresh } from './browser-sessions.ts';
import { ConfirmationCookies } from './confirmation-cookie.ts';
import { authCookies, clearCookie, isSecure, readCookie } from './cookies.ts';
import { CsrfTokens, isSameOrigin } from './csrf.ts';
import { DeveloperKeys } from './developer-keys.ts';
import {
  EmailLinkSignIn,
  type LinkClaim,
  type LinkConfirmation,
  type LinkPreview,
} from './email-link-sign-in.ts';
import { EmailLinks } from './email-links.ts';
import { Handoffs } from './handoffs.ts';
import { Identities, type Identity, type INVALID } from './identity.ts';
import {
  type PasswordAttempt,
  PasswordSignIn,
  type PasswordSignInResult,
} from './password-sign-in.ts';
import { type Session, Sessions } from './sessions.ts';

/**
 * Sign-in for one app on the local broker, as operations: who a request is (`authenticate`,
 * `bearer`, `cookie`, `mayOpen`, `appPaused`), the email-link and password flows, the session
 * cookie's life and grants. The stores behind them stay inside, but for the app access tokens
 * and the requests for them ({@link appTokens}, {@link tokenRequests}). The routes
 * that call these live in `*-routes.ts`, `admission.ts` and `control-plane.ts`, mounted by
 * `mountAuth`.
 *
 * @example
 * ```ts
 * const auth = await AuthService.create(db, outbox, resolveAuthOptions(appDir, { visibility: 'private' }));
 * const caller = await auth.authenticate(request);
 * await auth.grantAccess('ada@example.com');
 * ```
 */
export class AuthService {
  /** The app's id: sign-in pages name it, access JWTs and app access tokens are bound to it. */
  readonly appId: string;
  /** Whether anonymous visitors may open the app. */
  readonly visibility: AppVisibility;
  /** The app's access tokens (spec 2.2): minted, revealed once, listed, revoked. */
  readonly appTokens: AppTokens;
  /** Tokens asked for from a terminal, for the owner to approve in the browser. */
  readonly tokenRequests: AppTokenRequests;
  /** Agent credentials (beside the accounts): each acts for one account on one app. */
  readonly agentCredentials: AgentCredentials;

  readonly #options: ResolvedAuthOptions;
  readonly #accounts: Accounts;
  readonly #grants: AppGrants;
  readonly #csrf: CsrfTokens;
  readonly #identities: Identities;
  readonly #developer: DeveloperKeys;
  readonly #sessions: BrowserSessions;
  readonly #links: EmailLinkSignIn;
  readonly #confirmations: ConfirmationCookies;
  readonly #passwords: PasswordSignIn;
  readonly #handoffs: Handoffs;

  private constructor(
    db: Database,
    central: Database,
    outbox: Outbox,
    options: ResolvedAuthOptions,
    keys: AuthKeys,
  ) {
    const { clock, appId } = options;
    this.#options = options;
    this.appId = appId;
    this.visibility = options.visibility;
    const accounts = new Accounts(central, db, clock);
    const sessions = new Sessions(db, clock, appId, keys.csrf);
    const jwt = new AccessJwt(Buffer.from(keys.jwt, 'base64url'), appId, clock);
    this.#accounts = accounts;
    // Grants are the organisation's, beside its accounts (docs/organisations.md).
    this.#grants = new AppGrants(central, clock, appId);
    this.appTokens = new AppTokens(db, clock, appId);
    this.agentCredentials = new AgentCredentials(central, clock);
    this.tokenRequests = new AppTokenRequests(db, clock, appId, this.appTokens, (account, name) =>
      this.agentCredentials.issue(account, appId, name),
    );
    this.#csrf = new CsrfTokens(keys.csrf);
    this.#identities = new Identities(
      { accounts, sessions, jwt, grants: this.#grants, tokens: this.appTokens },
      options,
    );
    this.#developer = new DeveloperKeys(options, keys.csrf);
    this.#sessions = new BrowserSessions({ sessions, accounts, jwt }, options);
    const links = new EmailLinks(central, clock, appId);
    const confirmations = new ConfirmationCookies(keys.csrf, clock);
    this.#confirmations = confirmations;
    this.#links = new EmailLinkSignIn(
      { links, accounts, confirmations },
      this.#sessions,
      outbox,
      options,
    );
    this.#passwords = new PasswordSignIn(accounts, this.#links, this.#sessions, options);
    this.#handoffs = new Handoffs(central, clock);
  }

  /**
   * Loads (or creates) the signing keys and makes sure the owner account exists; the tables come
   * from the platform schema. Accounts, verifiers and email links live in `central`, the
   * organisation's central store (docs/organisations.md); without one, in the app's database.
   */
  static async create(
    db: Database,
    outbox: Outbox,
    options: ResolvedAuthOptions,
    central: Database = db,
  ): Promise<AuthService> {
    const service = new AuthService(db, central, outbox, options, await loadAuthKeys(db));
    await service.#identities.ensureOwner();
    return service;
  }

  /** A key of the owner API (grants, tokens), new at every start, besides the dev token. */
  get brokerKey(): string {
    return this.#developer.brokerKey;
  }

  /**
   * The broker's `authenticate` hook for Function calls and REST reads: the bearer credential;
   * the session cookie only for GET and HEAD (a cookie alone never authorises a state change,
   * so a cross-site form cannot act for the user). An invalid bearer is `AUTH_REQUIRED`.
   */
  readonly authenticate = (request: Request): Promise<Caller> =>
    this.#identities.authenticate(request);

  /**
   * The identity of an `Authorization: Bearer` credential: an app access token (this app's,
   * live; acts as the owner) or a session's access JWT (valid, for this app, its session still
   * active). Resolves to {@link INVALID} for a credential that fails, `undefined` without one.
   */
  bearer(request: Request): Promise<Identity | typeof INVALID | undefined> {
    return this.#identities.bearer(request);
  }

  /** The identity of the HttpOnly session cookie (checked, not rotated), if valid. */
  cookie(request: Request): Promise<Identity | undefined> {
    return this.#identities.cookie(request);
  }

  /** The app owner's account (cached briefly: admission asks on every request). */
  owner(): Promise<Account> {
    return this.#identities.owner();
  }

  /**
   * True while the app is offline: its owner's account paused for verification (spec 3.3) or
   * deleted (spec 3.5). Functions, cron, jobs and inbound mail stop meanwhile.
   */
  async appPaused(): Promise<boolean> {
    return (await this.#identities.appState()) !== 'active';
  }

  /** Whether the app is `active`, `paused` for its owner's verification, or `deleted`. */
  appState(): Promise<'active' | 'paused' | 'deleted'> {
    return this.#identities.appState();
  }

  /** Drops the cached owner after a change made outside this service (an account deletion). */
  forgetOwner(): void {
    this.#identities.forgetOwner();
  }

  /**
   * Whether `account` may open this private app: the owner, or a confirmed account holding a
   * grant (an unconfirmed account cannot use private apps of another owner, spec 3.3).
   */
  mayOpen(account: Account): Promise<boolean> {
    return this.#identities.mayOpen(account);
  }

  /** Whether `presented` is the dev token or {@link brokerKey} (compared in constant time). */
  isDeveloperKey(presented: string): Promise<boolean> {
    return this.#developer.isDeveloperKey(presented);
  }

  /** Whether `presented` is the key of the dashboard link (never a bearer credential). */
  isDashboardLinkKey(presented: string): Promise<boolean> {
    return this.#developer.isDashboardLinkKey(presented);
  }

  /** The developer cookie's value that the dashboard link sets (HMAC of the dev token). */
  developerCookieValue(): Promise<string | undefined> {
    return this.#developer.cookieValue();
  }

  /** `{app_url}`'s origin for links this app hands out (never taken from a `Host` header when set). */
  publicOrigin(request: Request): string {
    return new URL(this.#options.appUrl ?? request.url).origin;
  }

  /** Whether cookies set in answer to this request get `Secure`. */
  secure(request: Request): boolean {
    return isSecure(request, this.#options.secureCookies);
  }

  /** The form token for this browser and, when it has none yet, the CSRF cookie to set. */
  formToken(request: Request): { token: string; setCookie?: string } {
    return this.#csrf.issue(request, this.secure(request));
  }

  /** Whether a posted form is same-origin and carries this browser's form token (`csrf`). */
  checkForm(request: Request, form: Readonly<Record<string, string>>): boolean {
    return this.#csrf.verify(request, form.csrf);
  }

  /**
   * Mails a sign-in link to `email` (outbox and terminal) unless registration is off and the
   * address has no account. Resolves to the requesting browser's claim cookie (`Set-Cookie`),
   * `undefined` when nothing was sent.
   */
  requestSignInLink(
    email: string,
    returnTo: string,
    request: Request,
  ): Promise<string | undefined> {
    return this.#links.requestSignIn(email, returnTo, request);
  }

  /** The link behind `token` for its review page, with its cookie; approves nothing. */
  previewLink(token: string, request: Request): Promise<LinkPreview> {
    return this.#links.preview(token, request);
  }

  /** Approves the link, once, from its review page (confirmation cookie and the page's nonce). */
  confirmLink(request: Request, token: string, preview: string): Promise<LinkConfirmation> {
    return this.#links.confirm(request, token, preview);
  }

  /** Turns the approval of this browser's link request into its session, once. */
  claimLink(request: Request): Promise<LinkClaim> {
    return this.#links.claim(request);
  }

  /** Mails the owner a new confirmation link; `false` when the owner is already confirmed. */
  async resendVerification(request: Request): Promise<boolean> {
    const owner = await this.owner();
    if (owner.state === 'confirmed') return false;
    await this.#links.send(owner.email, 'confirm', '/', request);
    return true;
  }

  /** Signs in, or registers an unknown address, with a password (rate-limited). */
  signInWithPassword(attempt: PasswordAttempt, request: Request): Promise<PasswordSignInResult> {
    return this.#passwords.signIn(attempt, request);
  }

  /**
   * Sets or replaces an account's password (8 to 72 characters, checked by the caller) and ends
   * every other session of the account; `keepSession` (the changing browser's) stays.
   */
  setPassword(accountId: string, password: string, keepSession?: string): Promise<void> {
    return this.#passwords.setPassword(accountId, password, keepSession);
  }

  /** Rotates this browser's session cookie and signs a fresh access JWT (the session route). */
  refreshSession(request: Request): Promise<SessionRefresh> {
    return this.#sessions.refresh(request);
  }

  /**
   * Ends this browser's session only; resolves to the `Set-Cookie` that deletes its cookie
   * (`undefined` when the browser holds no cookie this app issued).
   */
  endSession(request: Request): Promise<string | undefined> {
    return this.#sessions.end(request);
  }

  /** Addresses granted access to this private app, alphabetically. */
  listGrants(): Promise<Array<{ email: string; grantedAt: string }>> {
    return this.#grants.list();
  }

  /** Grants an address access, with or without an account yet; `false` when it already had it. */
  grantAccess(email: string): Promise<boolean> {
    return this.#grants.grant(email);
  }

  /** Revokes an address's access from its next request on; `false` when it had none. */
  revokeAccess(email: string): Promise<boolean> {
    return this.#grants.revoke(email);
  }

  /**
   * The agent behind an agent credential presented to this app: `undefined` unless the
   * credential is live, was made for this app, and its account may still Edit the app
   * (revalidated on every request). `owns` says whether the account owns the app (its agent may
   * bind connections).
   */
  async agentFor(value: string): Promise<AgentActor | undefined> {
    if (!value.startsWith(AGENT_CREDENTIAL_PREFIX)) return undefined;
    const credential = await this.agentCredentials.verify(value);
    if (credential === undefined || credential.appId !== this.appId) return undefined;
    const authority = await this.#agentAuthority();
    if (!(await authority.mayEdit(credential.accountId))) return undefined;
    return {
      accountId: credential.accountId,
      credentialId: credential.id,
      owns: await authority.owns(credential.accountId),
    };
  }

  /** Whether the account may approve an agent credential for this app (Edit access). */
  async mayApproveAgent(accountId: string): Promise<boolean> {
    return (await this.#agentAuthority()).mayEdit(accountId);
  }

  /** Whether `accountId` is this app's configured owner (never, once the app was deleted). */
  async isOwner(accountId: string): Promise<boolean> {
    return (await this.appState()) !== 'deleted' && (await this.owner()).id === accountId;
  }

  async #agentAuthority(): Promise<AgentAuthority> {
    if (this.#options.agentAuthority) return this.#options.agentAuthority;
    const isOwner = (accountId: string) => this.isOwner(accountId);
    return { mayEdit: isOwner, owns: isOwner };
  }

  /**
   * The app's owner when this browser's session cookie is theirs and their address is
   * confirmed (an unconfirmed account does no owner-only action, spec 3.3).
   */
  async signedInOwner(request: Request): Promise<Account | undefined> {
    const [identity, owner] = await Promise.all([this.cookie(request), this.owner()]);
    const isOwner = identity?.account.id === owner.id && owner.state === 'confirmed';
    return isOwner ? owner : undefined;
  }

  /** The apps of the organisation, this one included (none for an app alone). */
  peers(): readonly OrgPeer[] {
    return this.#options.peers();
  }

  /**
   * A one-time code that signs `accountId` in at app `appId`, for the browser whose nonce hashes
   * to `stateHash`, carrying the time `signedInAt` of the sign-in behind it.
   */
  issueHandoff(
    accountId: string,
    appId: string,
    stateHash: string,
    signedInAt: Date,
  ): Promise<string> {
    return this.#handoffs.issue(accountId, appId, stateHash, signedInAt);
  }

  /**
   * Redeems a handoff code for this app and this browser's nonce: resolves to the `Set-Cookie`
   * of a new session of this app, `undefined` when the code is not (or no longer) good. The new
   * session keeps the handed-over sign-in's time: a handover is no new sign-in.
   */
  async redeemHandoff(code: string, nonce: string, request: Request): Promise<string | undefined> {
    const redeemed = await this.#handoffs.redeem(code, this.appId, nonce);
    const account =
      redeemed === undefined ? undefined : await this.#accounts.byId(redeemed.accountId);
    if (redeemed === undefined || account === undefined || account.state === 'paused') {
      return undefined;
    }
    return this.#sessions.start(account, request, redeemed.signedInAt);
  }

  /**
   * Creates the provisional identity an agent starts onboarding with (spec 5.2): unconfirmed,
   * paused at its 24-hour confirmation deadline unless confirmed before.
   */
  provisionalAccount(email: string): Promise<Account> {
    return this.#accounts.create(email, 'unconfirmed');
  }

  /**
   * The review page's side of an explicit confirmation outside the email-link sign-in (an
   * onboarding or approval link): the preview-bound cookie for `token`, and the page's nonce.
   */
  previewConfirmation(token: string, request: Request): { preview: string; setCookie: string } {
    return this.#confirmations.issue(token, this.secure(request));
  }

  /**
   * The explicit confirmation itself: same origin, carrying the cookie the review page of
   * `token` set and that page's `preview` nonce (a prefetcher has neither).
   */
  checkConfirmation(request: Request, token: string, preview: string): boolean {
    const cookie = readCookie(request, authCookies.confirm);
    return isSameOrigin(request) && this.#confirmations.verify(cookie, token, preview);
  }

  /**
   * After an explicit confirmation of the address in this browser: the account is confirmed
   * (sessions made before end, spec 3.3) and this browser gets a normal session. Resolves to the
   * `Set-Cookie` lines: the session, and the deletion of the confirmation cookie.
   */
  async confirmInThisBrowser(accountId: string, request: Request): Promise<string[]> {
    const found = await this.#accounts.byId(accountId);
    if (found === undefined) throw new Error('The account to confirm is gone');
    if (found.state !== 'confirmed') await this.#accounts.confirm(accountId);
    const account = (await this.#accounts.byId(accountId)) ?? found;
    const session = await this.#sessions.start(account, request);
    return [session, clearCookie(authCookies.confirm, this.secure(request))];
  }

  /** The account with this address (its confirmation deadline applied), if any. */
  account(email: string): Promise<Account | undefined> {
    return this.#accounts.byEmail(email);
  }

  /** The session with this id if it is neither revoked nor expired. */
  activeSession(id: string): Promise<Session | undefined> {
    return this.#sessions.active(id);
  }
}
