import { createHmac } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import { readBearer } from '../http/bearer.ts';
import { AUTH_BASE } from '../http/paths.ts';
import { anonymousCaller, type Caller, userCaller } from '../kernel/caller.ts';
import { randomSecret, safeEqual } from '../kernel/crypto.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { readDevState } from '../project/dev-state.ts';
import { AccessJwt } from './access-jwt.ts';
import { type Account, Accounts } from './accounts.ts';
import { AppGrants } from './app-grants.ts';
import { APP_TOKEN_PREFIX, AppTokens } from './app-tokens.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';
import { authSchemaSql } from './auth-schema.ts';
import { ConfirmationCookies } from './confirmation-cookie.ts';
import { authCookies, readCookie, setCookie } from './cookies.ts';
import { CsrfTokens } from './csrf.ts';
import { EmailLinks, type LinkPurpose } from './email-links.ts';
import { linkLifetime } from './pages.ts';
import { FailureLimiter } from './rate-limit.ts';
import { Sessions } from './sessions.ts';

/** Who a request acts for, and how it proved it. */
export interface Identity {
  readonly account: Account;
  /** `session`: the HttpOnly cookie; `access-token`: a session JWT; `app-token`: an app access token (acts as the owner). */
  readonly via: 'session' | 'access-token' | 'app-token';
}

/** How long {@link AuthService.owner} may answer from its cache without a change (ms). */
export const OWNER_CACHE_MS = 1000;

/** A bearer credential that is present but not (or no longer) valid. */
export const INVALID = Symbol('invalid credential');

/**
 * Sign-in for one app on the local broker: accounts, sessions, access JWTs, email links,
 * grants and app access tokens, plus the broker's `authenticate` hook. Routes live in
 * `auth-routes.ts`, `password-routes.ts`, `session-routes.ts`, `admission.ts` and
 * `control-routes.ts`; this class holds the state they share.
 *
 * @example
 * ```ts
 * const auth = await AuthService.create(db, outbox, resolveAuthOptions(appDir, { visibility: 'private' }));
 * const caller = await auth.authenticate(request);
 * ```
 */
export class AuthService {
  readonly options: ResolvedAuthOptions;
  readonly accounts: Accounts;
  readonly sessions: Sessions;
  readonly links: EmailLinks;
  readonly grants: AppGrants;
  readonly tokens: AppTokens;
  readonly jwt: AccessJwt;
  readonly csrf: CsrfTokens;
  readonly confirmations: ConfirmationCookies;
  /** A key of the owner API (grants, tokens), new at every start, besides `platform dev`'s dev token. */
  readonly brokerKey = randomSecret();
  /** Password failures per address and per client (see docs/auth.md). */
  readonly emailFailures: FailureLimiter;
  readonly clientFailures: FailureLimiter;
  readonly #outbox: Outbox;
  readonly #developerCookieKey: string;
  #owner: { readonly account: Account; readonly readAt: number } | undefined;
  #ownerGeneration = 0;
  readonly #bearer = new WeakMap<Request, Promise<Identity | typeof INVALID | undefined>>();
  readonly #cookie = new WeakMap<Request, Promise<Identity | undefined>>();

  private constructor(
    db: Database,
    outbox: Outbox,
    options: ResolvedAuthOptions,
    keys: { jwt: string; csrf: string },
  ) {
    const { clock, appId } = options;
    this.options = options;
    this.#outbox = outbox;
    this.#developerCookieKey = keys.csrf;
    this.accounts = new Accounts(db, clock);
    this.accounts.onChange(() => {
      this.#owner = undefined;
      this.#ownerGeneration += 1;
    });
    this.sessions = new Sessions(db, clock, appId);
    this.links = new EmailLinks(db, clock, appId);
    this.grants = new AppGrants(db, clock, appId);
    this.tokens = new AppTokens(db, clock, appId);
    this.jwt = new AccessJwt(Buffer.from(keys.jwt, 'base64url'), appId, clock);
    this.csrf = new CsrfTokens(keys.csrf);
    this.confirmations = new ConfirmationCookies(keys.csrf, clock);
    const limit = options.passwordRateLimit;
    this.emailFailures = new FailureLimiter(clock, limit.perEmail, limit.windowSeconds);
    this.clientFailures = new FailureLimiter(clock, limit.perClient, limit.windowSeconds);
  }

  /** Creates the tables and keys (idempotent), makes sure the owner account exists. */
  static async create(
    db: Database,
    outbox: Outbox,
    options: ResolvedAuthOptions,
  ): Promise<AuthService> {
    // Several brokers may share one PostgreSQL: concurrent CREATE TABLE IF NOT EXISTS can collide.
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(7007)');
      await tx.exec(authSchemaSql);
    });
    const key = async (name: string): Promise<string> => {
      await db.query(
        'INSERT INTO platform.auth_keys (name, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [name, randomSecret()],
      );
      const { rows } = await db.query<{ secret: string }>(
        'SELECT secret FROM platform.auth_keys WHERE name = $1',
        [name],
      );
      return (rows[0] as { secret: string }).secret;
    };
    const service = new AuthService(db, outbox, options, {
      jwt: await key('jwt'),
      csrf: await key('csrf'),
    });
    if ((await service.accounts.byEmail(options.ownerEmail)) === undefined) {
      await service.accounts.create(
        options.ownerEmail,
        options.ownerUnconfirmed ? 'unconfirmed' : 'confirmed',
      );
    }
    return service;
  }

  /**
   * The app owner's account (app access tokens act as it). Cached, because admission asks on
   * every request (`appPaused`): dropped at once when this process changes any account's state
   * (confirmation, pause, creation), re-read when the injected clock reaches an unconfirmed
   * owner's deadline (which pauses it), and at most {@link OWNER_CACHE_MS} old otherwise (another
   * broker sharing the PostgreSQL may have confirmed it).
   */
  async owner(): Promise<Account> {
    const cached = this.#owner;
    if (
      cached !== undefined &&
      performance.now() - cached.readAt < OWNER_CACHE_MS &&
      !(
        cached.account.state === 'unconfirmed' &&
        cached.account.confirmDeadline !== null &&
        this.options.clock.now() >= cached.account.confirmDeadline
      )
    ) {
      return cached.account;
    }
    const generation = this.#ownerGeneration;
    const owner = await this.accounts.byEmail(this.options.ownerEmail);
    if (owner === undefined) throw new Error('The owner account is missing');
    // A change while reading may have made this answer stale: do not keep it.
    if (generation === this.#ownerGeneration)
      this.#owner = { account: owner, readAt: performance.now() };
    return owner;
  }

  /** True while the owner's account is paused for verification (spec 3.3): the app serves a verification page. */
  async appPaused(): Promise<boolean> {
    return (await this.owner()).state === 'paused';
  }

  /**
   * Whether `account` may open this private app: the owner, or a confirmed account holding a
   * grant (an unconfirmed account cannot use private apps of another owner, spec 3.3).
   */
  async mayOpen(account: Account): Promise<boolean> {
    if (account.email === this.options.ownerEmail) return account.state !== 'paused';
    return account.state === 'confirmed' && (await this.grants.has(account.email));
  }

  /**
   * The identity of an `Authorization: Bearer` credential: an app access token (this app's,
   * live) or a session's access JWT (valid, for this app, its session still active). Resolves
   * to {@link INVALID} for a credential that fails, `undefined` without one.
   */
  bearer(request: Request): Promise<Identity | typeof INVALID | undefined> {
    let found = this.#bearer.get(request);
    if (found === undefined) {
      found = this.#resolveBearer(request);
      this.#bearer.set(request, found);
    }
    return found;
  }

  /** The identity of the HttpOnly session cookie (checked, not rotated), if valid. */
  cookie(request: Request): Promise<Identity | undefined> {
    let found = this.#cookie.get(request);
    if (found === undefined) {
      found = this.#resolveCookie(request);
      this.#cookie.set(request, found);
    }
    return found;
  }

  /**
   * The broker's `authenticate` hook for Function calls and REST reads: the bearer credential;
   * the session cookie only for GET and HEAD (a cookie alone never authorises a state change,
   * so a cross-site form cannot act for the user). An invalid bearer is `AUTH_REQUIRED`.
   */
  readonly authenticate = async (request: Request): Promise<Caller> => {
    const bearer = await this.bearer(request);
    if (bearer === INVALID) {
      throw new PlatformError({
        code: 'AUTH_REQUIRED',
        message: 'The credential is expired, revoked or not valid for this app. Sign in again.',
      });
    }
    const identity =
      bearer ??
      (request.method === 'GET' || request.method === 'HEAD'
        ? await this.cookie(request)
        : undefined);
    return identity === undefined ? anonymousCaller : userCaller(identity.account.id);
  };

  /** The dev token of the running `platform dev`: the option, else `.platform/dev.json`'s. */
  async devToken(): Promise<string | undefined> {
    return this.options.devToken ?? (await readDevState(this.options.appDir))?.token;
  }

  /** Whether `presented` is the dev token or {@link brokerKey} (compared in constant time). */
  async isDeveloperKey(presented: string): Promise<boolean> {
    const devToken = await this.devToken();
    return (
      safeEqual(presented, this.brokerKey) ||
      (devToken !== undefined && safeEqual(presented, devToken))
    );
  }

  /**
   * The value of the developer cookie the dashboard's dev-token link sets: an HMAC of the
   * current dev token, so the token itself never sits in a cookie and a new `platform dev`
   * start (a new token) invalidates it.
   */
  async developerCookieValue(): Promise<string | undefined> {
    const devToken = await this.devToken();
    if (devToken === undefined) return undefined;
    return createHmac('sha256', this.#developerCookieKey)
      .update(`platform_dev:${devToken}`)
      .digest('base64url');
  }

  /** Whether cookies of this request get `Secure`. */
  secure(request: Request): boolean {
    return this.options.secureCookies ?? new URL(request.url).protocol === 'https:';
  }

  /** Starts a session for `account` (30 days, or until the confirmation deadline when provisional); resolves to its `Set-Cookie`. */
  async startSession(account: Account, request: Request): Promise<string> {
    const now = this.options.clock.now().getTime();
    const provisional = account.state !== 'confirmed';
    const expiresAt =
      provisional && account.confirmDeadline !== null
        ? account.confirmDeadline
        : new Date(now + limits.sessionSeconds * 1000);
    const { cookie } = await this.sessions.create(account.id, { provisional, expiresAt });
    return this.sessionCookie(cookie, expiresAt, request);
  }

  /** The `Set-Cookie` of a session cookie value that lives until `expiresAt`. */
  sessionCookie(value: string, expiresAt: Date, request: Request): string {
    const maxAgeSeconds = (expiresAt.getTime() - this.options.clock.now().getTime()) / 1000;
    return setCookie(authCookies.session, value, { secure: this.secure(request), maxAgeSeconds });
  }

  /**
   * Sends an email link: captured in the outbox (development never sends mail) and printed in
   * the terminal. Resolves to the requesting browser's claim cookie value.
   */
  async sendLink(
    email: string,
    purpose: LinkPurpose,
    returnTo: string,
    origin: string,
  ): Promise<string> {
    const { token, claim } = await this.links.request(email, purpose, returnTo);
    const url = `${origin}${AUTH_BASE}/confirm?token=${token}`;
    const app = this.options.appId;
    const subject = purpose === 'sign-in' ? `Sign in to ${app}` : `Confirm your email for ${app}`;
    await this.#outbox.capture(
      {
        from: 'auth',
        to: email,
        subject,
        text: `${subject}: open ${url} and confirm. The link is valid for ${linkLifetime} and works once.\nIf you did not ask for this, ignore this email.`,
      },
      ['auth'],
    );
    this.options.print(`[auth] ${subject} (${email}, valid ${linkLifetime}): ${url}`);
    return claim;
  }

  /** The form token for this browser and, when it has none yet, the CSRF cookie to set. */
  formToken(request: Request): { token: string; setCookie?: string } {
    return this.csrf.issue(request, this.secure(request));
  }

  async #resolveBearer(request: Request): Promise<Identity | typeof INVALID | undefined> {
    const value = readBearer(request.headers.get('authorization'));
    if (value === undefined) return undefined;
    if (value === null) return INVALID;
    if (value.startsWith(APP_TOKEN_PREFIX)) {
      if (!(await this.tokens.verify(value))) return INVALID;
      const owner = await this.owner();
      return owner.state === 'paused' ? INVALID : { account: owner, via: 'app-token' };
    }
    const claims = await this.jwt.verify(value);
    if (claims === undefined) return INVALID;
    // Revalidated on every request, in one query: the session still active, its account.
    const account = await this.accounts.bySession(claims.sessionId, this.options.appId);
    return account === undefined || account.id !== claims.accountId || account.state === 'paused'
      ? INVALID
      : { account, via: 'access-token' };
  }

  async #resolveCookie(request: Request): Promise<Identity | undefined> {
    const value = readCookie(request, authCookies.session);
    if (value === undefined) return undefined;
    const check = await this.sessions.check(value, { rotate: false });
    if (!check.ok) return undefined;
    const account = await this.accounts.byId(check.session.accountId);
    return account === undefined || account.state === 'paused'
      ? undefined
      : { account, via: 'session' };
  }
}
