import { PlatformError } from '@platform/errors';
import { readBearer } from '../http/bearer.ts';
import { anonymousCaller, type Caller, userCaller } from '../kernel/caller.ts';
import type { AccessJwt } from './access-jwt.ts';
import type { Account, Accounts } from './accounts.ts';
import type { AppGrants } from './app-grants.ts';
import { APP_TOKEN_PREFIX, type AppTokens } from './app-tokens.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';
import { authCookies, readCookie } from './cookies.ts';
import type { Sessions } from './sessions.ts';

/** Who a request acts for, and how it proved it. */
/** Whether an account may open the private app, or why not (see `Identities.admissionOf`). */
export type Admission = 'admitted' | 'unconfirmed' | 'no-grant';

export interface Identity {
  readonly account: Account;
  /**
   * `session`: the HttpOnly cookie; `access-token`: a session JWT; `app-token`: an app access
   * token (acts as the owner).
   */
  readonly via: 'session' | 'access-token' | 'app-token';
  /** The browser session behind a session cookie or access JWT; none for an app token. */
  readonly sessionId?: string;
}

/** How long {@link Identities.owner} may answer from its cache without a change (ms). */
export const OWNER_CACHE_MS = 1000;

/** A bearer credential that is present but not (or no longer) valid. */
export const INVALID = Symbol('invalid credential');

/** The stores {@link Identities} reads. */
export interface IdentityStores {
  readonly accounts: Accounts;
  readonly sessions: Sessions;
  readonly grants: AppGrants;
  readonly tokens: AppTokens;
  readonly jwt: AccessJwt;
}

/**
 * Who a request is and whether it may open the app: the bearer credential or the session
 * cookie of a request (each resolved once per request), the owner's account (cached, because
 * admission asks on every request), grants and the paused state of spec 3.3.
 */
export class Identities {
  readonly #stores: IdentityStores;
  readonly #options: ResolvedAuthOptions;
  #owner: { readonly account: Account; readonly readAt: number } | undefined;
  #ownerGeneration = 0;
  readonly #bearer = new WeakMap<Request, Promise<Identity | typeof INVALID | undefined>>();
  readonly #cookie = new WeakMap<Request, Promise<Identity | undefined>>();

  constructor(stores: IdentityStores, options: ResolvedAuthOptions) {
    this.#stores = stores;
    this.#options = options;
    stores.accounts.onChange(() => this.forgetOwner());
    options.ownerRecord?.onChange(() => this.forgetOwner());
  }

  /**
   * Makes sure the app has an owner: the configured owner's account is created unless it exists
   * (unconfirmed with `ownerUnconfirmed`). With an owner record, only while the record names no
   * owner yet, and the account is then recorded as the owner: once recorded, the record alone
   * decides (an onboarding or `platform app authority set owner` changes it).
   */
  async ensureOwner(): Promise<void> {
    const { accounts } = this.#stores;
    const { ownerEmail, ownerUnconfirmed, ownerRecord } = this.#options;
    if (ownerRecord !== undefined && (await ownerRecord.current()) !== undefined) return;
    const account =
      (await accounts.byEmail(ownerEmail)) ??
      (await accounts.create(ownerEmail, ownerUnconfirmed ? 'unconfirmed' : 'confirmed'));
    await ownerRecord?.set(account.id);
  }

  /**
   * The app owner's account (app access tokens act as it); `APP_DELETED` once the owner's
   * account was deleted with the app. Dropped from the cache at once when this process changes
   * any account's state (confirmation, pause, creation, deletion), re-read when the clock
   * reaches an unconfirmed owner's deadline (which pauses it), and at most
   * {@link OWNER_CACHE_MS} old otherwise (another broker sharing the PostgreSQL may have
   * changed it).
   */
  async owner(): Promise<Account> {
    const owner = await this.#currentOwner();
    if (owner === undefined) {
      throw new PlatformError({
        code: 'APP_DELETED',
        message: "This app was deleted with its owner's account.",
      });
    }
    return owner;
  }

  /**
   * `paused` while the owner's account is paused for verification (spec 3.3), `deleted` once
   * it was deleted with the app (spec 3.5): either way the app is offline.
   */
  async appState(): Promise<'active' | 'paused' | 'deleted'> {
    const owner = await this.#currentOwner();
    if (owner === undefined) return 'deleted';
    return owner.state === 'paused' ? 'paused' : 'active';
  }

  /** Forgets the cached owner, after a change made outside {@link Accounts} (a deletion). */
  forgetOwner(): void {
    this.#owner = undefined;
    this.#ownerGeneration += 1;
  }

  async #currentOwner(): Promise<Account | undefined> {
    const cached = this.#owner;
    if (cached !== undefined && performance.now() - cached.readAt < OWNER_CACHE_MS) {
      const { state, confirmDeadline } = cached.account;
      const due =
        state === 'unconfirmed' &&
        confirmDeadline !== null &&
        this.#options.clock.now() >= confirmDeadline;
      if (!due) return cached.account;
    }
    const generation = this.#ownerGeneration;
    const owner = await this.#readOwner();
    // A change while reading may have made this answer stale: do not keep it.
    if (owner !== undefined && generation === this.#ownerGeneration)
      this.#owner = { account: owner, readAt: performance.now() };
    return owner;
  }

  // The recorded owner when the organisation records one, else the configured owner's account.
  async #readOwner(): Promise<Account | undefined> {
    const { ownerRecord, ownerEmail } = this.#options;
    if (ownerRecord === undefined) return this.#stores.accounts.byEmail(ownerEmail);
    const id = await ownerRecord.current();
    return id === undefined ? undefined : this.#stores.accounts.byId(id);
  }

  /**
   * Whether `account` may open the private app: the owner, a confirmed account with a grant, or
   * a confirmed platform administrator opening it for review.
   */
  async mayOpen(account: Account): Promise<boolean> {
    return (await this.admissionOf(account)) === 'admitted';
  }

  /**
   * Why `account` may or may not open the private app, so the refusal names the real reason:
   * `admitted`; `unconfirmed`, an account with a grant (or a platform administrator) that has not
   * confirmed its email address yet (spec 3.3), which no further grant would help; `no-grant`.
   */
  async admissionOf(account: Account): Promise<Admission> {
    if (account.id === (await this.#currentOwner())?.id) {
      return account.state === 'paused' ? 'unconfirmed' : 'admitted';
    }
    const allowed =
      (await this.#stores.grants.has(account.email)) ||
      (await this.#options.isReviewer(account.id));
    if (!allowed) return 'no-grant';
    return account.state === 'confirmed' ? 'admitted' : 'unconfirmed';
  }

  /** The identity of the request's bearer credential (see `AuthService.bearer`). */
  bearer(request: Request): Promise<Identity | typeof INVALID | undefined> {
    let found = this.#bearer.get(request);
    if (found === undefined) {
      found = this.#resolveBearer(request);
      this.#bearer.set(request, found);
    }
    return found;
  }

  /** The identity of the request's session cookie (checked, not rotated), if valid. */
  cookie(request: Request): Promise<Identity | undefined> {
    let found = this.#cookie.get(request);
    if (found === undefined) {
      found = this.#resolveCookie(request);
      this.#cookie.set(request, found);
    }
    return found;
  }

  /** The caller of a Function call or REST read (see `AuthService.authenticate`). */
  async authenticate(request: Request): Promise<Caller> {
    const bearer = await this.bearer(request);
    if (bearer === INVALID) {
      throw new PlatformError({
        code: 'AUTH_REQUIRED',
        message: 'The credential is expired, revoked or not valid for this app. Sign in again.',
      });
    }
    // A cookie alone never authorises a state change: a cross-site form cannot act for the user.
    const readOnly = request.method === 'GET' || request.method === 'HEAD';
    const identity = bearer ?? (readOnly ? await this.cookie(request) : undefined);
    return identity === undefined ? anonymousCaller : userCaller(identity.account.id);
  }

  async #resolveBearer(request: Request): Promise<Identity | typeof INVALID | undefined> {
    const value = readBearer(request.headers.get('authorization'));
    if (value === undefined) return undefined;
    if (value === null) return INVALID;
    const { accounts, tokens, jwt } = this.#stores;
    if (value.startsWith(APP_TOKEN_PREFIX)) {
      if (!(await tokens.verify(value))) return INVALID;
      const owner = await this.owner();
      return owner.state === 'paused' ? INVALID : { account: owner, via: 'app-token' };
    }
    const claims = await jwt.verify(value);
    if (claims === undefined) return INVALID;
    // Revalidated on every request, in one query: the session still active, its account.
    const account = await accounts.bySession(claims.sessionId, this.#options.appId);
    return account === undefined || account.id !== claims.accountId || account.state === 'paused'
      ? INVALID
      : { account, via: 'access-token', sessionId: claims.sessionId };
  }

  async #resolveCookie(request: Request): Promise<Identity | undefined> {
    const value = readCookie(request, authCookies.session);
    if (value === undefined) return undefined;
    const check = await this.#stores.sessions.check(value, { rotate: false });
    if (!check.ok) return undefined;
    const account = await this.#stores.accounts.admits(check.session);
    return account === undefined || account.state === 'paused'
      ? undefined
      : { account, via: 'session', sessionId: check.session.id };
  }
}
