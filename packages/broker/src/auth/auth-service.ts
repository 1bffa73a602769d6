import type { Database } from '../db/database.ts';
import type { AgentActor } from '../http/broker-env.ts';
import type { Caller } from '../kernel/caller.ts';
import type { Outbox } from '../outbox/outbox.ts';
import type { Account } from './accounts.ts';
import { AgentAccess } from './agent-access.ts';
import type { AgentCredentials } from './agent-credentials.ts';
import type { AppTokenRequests } from './app-token-requests.ts';
import type { AppTokens } from './app-tokens.ts';
import { loadAuthKeys } from './auth-keys.ts';
import type {
  AccountAdmission,
  AppVisibility,
  OrgPeer,
  ResolvedAuthOptions,
} from './auth-options.ts';
import { type AuthParts, wireAuthParts } from './auth-parts.ts';
import type { SessionRefresh } from './browser-sessions.ts';
import { isSecure } from './cookies.ts';
import type { LinkClaim, LinkConfirmation, LinkPreview } from './email-link-sign-in.ts';
import type { Admission, Identity, INVALID } from './identity.ts';
import type { PasswordAttempt, PasswordSignInResult } from './password-sign-in.ts';
import type { Session } from './sessions.ts';

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
  /** `platform login`'s requests (central store), approved on this app's pages. */
  readonly accountRequests: AppTokenRequests;

  readonly #options: ResolvedAuthOptions;
  readonly #parts: AuthParts;
  readonly #agents: AgentAccess;

  private constructor(options: ResolvedAuthOptions, parts: AuthParts) {
    this.#options = options;
    this.#parts = parts;
    this.appId = options.appId;
    this.visibility = options.visibility;
    this.appTokens = parts.appTokens;
    this.tokenRequests = parts.tokenRequests;
    this.agentCredentials = parts.agentCredentials;
    this.accountRequests = parts.accountRequests;
    this.#agents = new AgentAccess(
      parts.agentCredentials,
      options.appId,
      options.agentAuthority,
      (accountId) => this.isOwner(accountId),
    );
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
    const parts = wireAuthParts(db, central, outbox, options, await loadAuthKeys(db));
    const service = new AuthService(options, parts);
    await parts.identities.ensureOwner();
    return service;
  }

  /** A key of the owner API (grants, tokens), new at every start, besides the dev token. */
  get brokerKey(): string {
    return this.#parts.developer.brokerKey;
  }

  /**
   * The broker's `authenticate` hook for Function calls and REST reads: the bearer credential;
   * the session cookie only for GET and HEAD (a cookie alone never authorises a state change,
   * so a cross-site form cannot act for the user). An invalid bearer is `AUTH_REQUIRED`.
   */
  readonly authenticate = (request: Request): Promise<Caller> =>
    this.#parts.identities.authenticate(request);

  /**
   * The identity of an `Authorization: Bearer` credential: an app access token (this app's,
   * live; acts as the owner) or a session's access JWT (valid, for this app, its session still
   * active). Resolves to {@link INVALID} for a credential that fails, `undefined` without one.
   */
  bearer(request: Request): Promise<Identity | typeof INVALID | undefined> {
    return this.#parts.identities.bearer(request);
  }

  /** The identity of the HttpOnly session cookie (checked, not rotated), if valid. */
  cookie(request: Request): Promise<Identity | undefined> {
    return this.#parts.identities.cookie(request);
  }

  /** The app owner's account (cached briefly: admission asks on every request). */
  owner(): Promise<Account> {
    return this.#parts.identities.owner();
  }

  /**
   * True while the app is offline: its owner's account paused for verification (spec 3.3) or
   * deleted (spec 3.5). Functions, cron, jobs and inbound mail stop meanwhile.
   */
  async appPaused(): Promise<boolean> {
    return (await this.#parts.identities.appState()) !== 'active';
  }

  /** Whether the app is `active`, `paused` for its owner's verification, or `deleted`. */
  appState(): Promise<'active' | 'paused' | 'deleted'> {
    return this.#parts.identities.appState();
  }

  /** Drops the cached owner after a change made outside this service (an account deletion). */
  forgetOwner(): void {
    this.#parts.identities.forgetOwner();
  }

  /**
   * Whether `account` may open this private app: the owner, or a confirmed account holding a
   * grant (an unconfirmed account cannot use private apps of another owner, spec 3.3).
   */
  mayOpen(account: Account): Promise<boolean> {
    return this.#parts.identities.mayOpen(account);
  }

  /** Why `account` may or may not open the private app ({@link Admission}). */
  admissionOf(account: Account): Promise<Admission> {
    return this.#parts.identities.admissionOf(account);
  }

  /**
   * Sends the signed-in browser's unconfirmed account a new confirmation link (back to `/`), for
   * the page that tells it to confirm its email address; `false` when there is no such account.
   */
  async resendOwnConfirmation(request: Request): Promise<boolean> {
    const identity = await this.cookie(request);
    if (identity === undefined || identity.account.state !== 'unconfirmed') return false;
    await this.#parts.links.send(identity.account.email, 'confirm', '/', request);
    return true;
  }

  /**
   * Whether the user `userId` still has access to this app, as work done on their behalf
   * (a job's delegated file grant) asks later: their account must still exist and, for a
   * private app, still be admitted ({@link mayOpen}: owner, or a confirmed account with a grant).
   */
  async stillAdmits(userId: string): Promise<boolean> {
    const account = await this.#parts.accounts.byId(userId);
    if (account === undefined) return false;
    return this.visibility === 'public' || this.mayOpen(account);
  }

  /** Whether `presented` is the dev token or {@link brokerKey} (compared in constant time). */
  isDeveloperKey(presented: string): Promise<boolean> {
    return this.#parts.developer.isDeveloperKey(presented);
  }

  /** Whether `presented` is the key of the dashboard link (never a bearer credential). */
  isDashboardLinkKey(presented: string): Promise<boolean> {
    return this.#parts.developer.isDashboardLinkKey(presented);
  }

  /** The developer cookie's value that the dashboard link sets (HMAC of the dev token). */
  developerCookieValue(): Promise<string | undefined> {
    return this.#parts.developer.cookieValue();
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
    return this.#parts.csrf.issue(request, this.secure(request));
  }

  /** The app console's form token for this browser and, when it has none yet, its cookie. */
  consoleToken(request: Request): { token: string; setCookie?: string } {
    return this.#parts.consoleCsrf.issue(request, this.secure(request));
  }

  /** Whether a console request is same-origin and carries this browser's console form token. */
  checkConsoleToken(request: Request, token: string | undefined): boolean {
    return this.#parts.consoleCsrf.verify(request, token);
  }

  /** Whether a posted form is same-origin and carries this browser's form token (`csrf`). */
  checkForm(request: Request, form: Readonly<Record<string, string>>): boolean {
    return this.#parts.csrf.verify(request, form.csrf);
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
    return this.#parts.links.requestSignIn(email, returnTo, request);
  }

  /** The link behind `token` for its review page, with its cookie; approves nothing. */
  previewLink(token: string, request: Request): Promise<LinkPreview> {
    return this.#parts.links.preview(token, request);
  }

  /** Approves the link, once, from its review page (confirmation cookie and the page's nonce). */
  confirmLink(request: Request, token: string, preview: string): Promise<LinkConfirmation> {
    return this.#parts.links.confirm(request, token, preview);
  }

  /** Turns the approval of this browser's link request into its session, once. */
  claimLink(request: Request): Promise<LinkClaim> {
    return this.#parts.links.claim(request);
  }

  /** Mails the owner a new confirmation link; `false` when the owner is already confirmed. */
  async resendVerification(request: Request): Promise<boolean> {
    const owner = await this.owner();
    if (owner.state === 'confirmed') return false;
    await this.#parts.links.send(owner.email, 'confirm', '/', request);
    return true;
  }

  /** Signs in, or registers an unknown address, with a password (rate-limited). */
  signInWithPassword(attempt: PasswordAttempt, request: Request): Promise<PasswordSignInResult> {
    return this.#parts.passwords.signIn(attempt, request);
  }

  /**
   * Sets or replaces an account's password (8 to 72 characters, checked by the caller) and ends
   * every other session of the account; `keepSession` (the changing browser's) stays.
   */
  setPassword(accountId: string, password: string, keepSession?: string): Promise<void> {
    return this.#parts.passwords.setPassword(accountId, password, keepSession);
  }

  /** Rotates this browser's session cookie and signs a fresh access JWT (the session route). */
  refreshSession(request: Request): Promise<SessionRefresh> {
    return this.#parts.sessions.refresh(request);
  }

  /**
   * Ends this browser's session only; resolves to the `Set-Cookie` that deletes its cookie
   * (`undefined` when the browser holds no cookie this app issued).
   */
  endSession(request: Request): Promise<string | undefined> {
    return this.#parts.sessions.end(request);
  }

  /** Addresses granted access to this private app, alphabetically. */
  listGrants(): Promise<Array<{ email: string; grantedAt: string }>> {
    return this.#parts.grants.list();
  }

  /** Grants an address access, with or without an account yet; `false` when it already had it. */
  grantAccess(email: string): Promise<boolean> {
    return this.#parts.grants.grant(email);
  }

  /** Revokes an address's access from its next request on; `false` when it had none. */
  revokeAccess(email: string): Promise<boolean> {
    return this.#parts.grants.revoke(email);
  }

  /**
   * The agent behind an agent credential presented to this app: `undefined` unless the
   * credential is live, was made for this app, and its account may still Edit the app
   * (revalidated on every request). `owns` says whether the account owns the app (its agent may
   * bind connections).
   */
  agentFor(value: string): Promise<AgentActor | undefined> {
    return this.#agents.agentFor(value);
  }

  /** Whether the account may approve an agent credential for this app (Edit access). */
  mayApproveAgent(accountId: string): Promise<boolean> {
    return this.#agents.mayApprove(accountId);
  }

  /** Whether `accountId` is this app's configured owner (never, once the app was deleted). */
  async isOwner(accountId: string): Promise<boolean> {
    return (await this.appState()) !== 'deleted' && (await this.owner()).id === accountId;
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

  /**
   * How the control plane admits the account credential of `platform login`, when it does
   * (`platform serve`'s deployed apps); `undefined` where it is refused like any other account.
   */
  get accountAdmission(): AccountAdmission | undefined {
    return this.#options.accountAdmission;
  }

  /** The apps of the organisation, this one included (none for an app alone). */
  peers(): readonly OrgPeer[] {
    return this.#options.peers();
  }

  /** Whether this is the organisation's central sign-in, where the relay ends. */
  get centralSignIn(): boolean {
    return this.#options.centralSignIn;
  }

  /** What the sign-in pages and mails call the app: its id unless told otherwise. */
  get displayName(): string {
    return this.#options.displayName;
  }

  /** The organisation's central sign-in this app relays a browser without a session to first. */
  get centralSignInAt(): OrgPeer | undefined {
    return this.#options.centralSignInAt;
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
    return this.#parts.handoffs.issue(accountId, appId, stateHash, signedInAt);
  }

  /**
   * Redeems a handoff code for this app and this browser's nonce: resolves to the `Set-Cookie`
   * of a new session of this app, `undefined` when the code is not (or no longer) good. The new
   * session keeps the handed-over sign-in's time: a handover is no new sign-in.
   */
  async redeemHandoff(code: string, nonce: string, request: Request): Promise<string | undefined> {
    const redeemed = await this.#parts.handoffs.redeem(code, this.appId, nonce);
    const account =
      redeemed === undefined ? undefined : await this.#parts.accounts.byId(redeemed.accountId);
    if (redeemed === undefined || account === undefined || account.state === 'paused') {
      return undefined;
    }
    return this.#parts.sessions.start(account, request, redeemed.signedInAt);
  }

  /**
   * Creates the provisional identity an agent starts onboarding with (spec 5.2): unconfirmed,
   * paused at its 24-hour confirmation deadline unless confirmed before.
   */
  provisionalAccount(email: string): Promise<Account> {
    return this.#parts.accounts.create(email, 'unconfirmed');
  }

  /**
   * The review page's side of an explicit confirmation outside the email-link sign-in (an
   * onboarding or approval link): the preview-bound cookie for `token`, and the page's nonce.
   */
  previewConfirmation(token: string, request: Request): { preview: string; setCookie: string } {
    return this.#parts.explicitConfirmation.preview(token, this.secure(request));
  }

  /**
   * The explicit confirmation itself: same origin, carrying the cookie the review page of
   * `token` set and that page's `preview` nonce (a prefetcher has neither).
   */
  checkConfirmation(request: Request, token: string, preview: string): boolean {
    return this.#parts.explicitConfirmation.check(request, token, preview);
  }

  /**
   * After an explicit confirmation of the address in this browser: the account is confirmed
   * (sessions made before end, spec 3.3) and this browser gets a normal session. Resolves to the
   * `Set-Cookie` lines: the session, and the deletion of the confirmation cookie.
   */
  confirmInThisBrowser(accountId: string, request: Request): Promise<string[]> {
    const secure = this.secure(request);
    return this.#parts.explicitConfirmation.confirmInThisBrowser(accountId, request, secure);
  }

  /** The account with this address (its confirmation deadline applied), if any. */
  account(email: string): Promise<Account | undefined> {
    return this.#parts.accounts.byEmail(email);
  }

  /** The session with this id if it is neither revoked nor expired. */
  activeSession(id: string): Promise<Session | undefined> {
    return this.#parts.sessions.active(id);
  }
}
