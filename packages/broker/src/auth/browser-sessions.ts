import { limits } from '@platform/schema';
import type { AccessJwt } from './access-jwt.ts';
import type { Account, Accounts } from './accounts.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';
import { authCookies, clearCookie, isSecure, readCookie, setCookie } from './cookies.ts';
import type { Session, Sessions } from './sessions.ts';

/** The signed-in user as the session route answers it. */
export interface SessionUser {
  readonly id: string;
  readonly email: string;
  readonly displayName?: string;
}

/** What a refresh of the browser's session cookie found. */
export type SessionRefresh =
  /** No session cookie: the browser is signed out. */
  | { readonly state: 'none' }
  /**
   * Revoked, expired, reused, or its account paused: `setCookie` deletes the cookie. A cookie
   * this app never issued (another app's on a shared host, or made up) is only refused:
   * `setCookie` is then absent, so it is never deleted from under its own app.
   */
  | { readonly state: 'ended'; readonly setCookie: string | undefined }
  /** A fresh access JWT; `setCookie` is the rotated cookie (absent inside the reuse interval). */
  | {
      readonly state: 'active';
      readonly user: SessionUser;
      readonly token: string;
      readonly expiresAt: Date;
      readonly setCookie: string | undefined;
    };

/** The stores {@link BrowserSessions} works on. */
export interface BrowserSessionStores {
  readonly sessions: Sessions;
  readonly accounts: Accounts;
  readonly jwt: AccessJwt;
}

/**
 * The session cookie's life in a browser (spec 2.1, 3.4): started by a sign-in, rotated by
 * every refresh (which hands out a fresh access JWT), ended by sign-out.
 */
export class BrowserSessions {
  readonly #stores: BrowserSessionStores;
  readonly #options: ResolvedAuthOptions;

  constructor(stores: BrowserSessionStores, options: ResolvedAuthOptions) {
    this.#stores = stores;
    this.#options = options;
  }

  /**
   * Starts a session for `account`: 30 days, or until the confirmation deadline while the
   * account is unconfirmed (a provisional session). Resolves to its `Set-Cookie`. `signedInAt`
   * carries the original sign-in's time into a session handed over from another app.
   */
  async start(account: Account, request: Request, signedInAt?: Date): Promise<string> {
    const provisional = account.state !== 'confirmed';
    const expiresAt =
      provisional && account.confirmDeadline !== null
        ? account.confirmDeadline
        : new Date(this.#options.clock.now().getTime() + limits.sessionSeconds * 1000);
    const { cookie } = await this.#stores.sessions.create(account.id, {
      provisional,
      expiresAt,
      signedInAt,
    });
    return this.#sessionCookie(cookie, expiresAt, request);
  }

  /**
   * Rotates the request's session cookie and signs a fresh access JWT for it; a session that
   * can no longer be used ends (its account paused: revoked now).
   */
  async refresh(request: Request): Promise<SessionRefresh> {
    const { sessions, accounts, jwt } = this.#stores;
    const value = readCookie(request, authCookies.session);
    if (value === undefined) return { state: 'none' };
    const check = await sessions.check(value, { rotate: true });
    const account = check.ok ? await accounts.admits(check.session) : undefined;
    if (!check.ok || account === undefined || account.state === 'paused') {
      if (check.ok) await sessions.revoke(check.session.id, 'account paused');
      const ours = check.ok || check.reason !== 'unknown';
      return { state: 'ended', setCookie: ours ? this.#clear(request) : undefined };
    }
    const { session } = check;
    const { token, expiresAt } = await jwt.sign(
      { accountId: account.id, sessionId: session.id },
      session.expiresAt,
      account.email,
    );
    const user = {
      id: account.id,
      email: account.email,
      ...(account.displayName ? { displayName: account.displayName } : {}),
    };
    const setCookie =
      check.cookie === undefined
        ? undefined
        : this.#sessionCookie(check.cookie, session.expiresAt, request);
    return { state: 'active', user, token, expiresAt, setCookie };
  }

  /**
   * Ends this browser's session, if its cookie is valid (spec 3.4: the account's other sessions
   * stay). Resolves to the `Set-Cookie` that deletes the cookie, or `undefined` when there is
   * no cookie of this app's to delete (none, or one it never issued: another app's on a shared
   * host keeps its session).
   */
  async end(request: Request): Promise<string | undefined> {
    const value = readCookie(request, authCookies.session);
    if (value === undefined) return undefined;
    const check = await this.#stores.sessions.check(value, { rotate: false });
    if (check.ok) await this.#stores.sessions.revoke(check.session.id, 'signed out');
    return check.ok || check.reason !== 'unknown' ? this.#clear(request) : undefined;
  }

  /** The live session of this request's cookie (checked, not rotated), if any. */
  async current(request: Request): Promise<Session | undefined> {
    const value = readCookie(request, authCookies.session);
    if (value === undefined) return undefined;
    const check = await this.#stores.sessions.check(value, { rotate: false });
    return check.ok ? check.session : undefined;
  }

  /** Ends every other session of the account (`keep` stays), as after a password change. */
  endOthers(accountId: string, keep: string | undefined): Promise<void> {
    return this.#stores.sessions.revokeOthers(accountId, keep, 'password changed');
  }

  /** The session if it is neither revoked nor expired. */
  active(id: string): Promise<Session | undefined> {
    return this.#stores.sessions.active(id);
  }

  #sessionCookie(value: string, expiresAt: Date, request: Request): string {
    const maxAgeSeconds = (expiresAt.getTime() - this.#options.clock.now().getTime()) / 1000;
    const secure = isSecure(request, this.#options.secureCookies);
    return setCookie(authCookies.session, value, { secure, maxAgeSeconds });
  }

  #clear(request: Request): string {
    return clearCookie(authCookies.session, isSecure(request, this.#options.secureCookies));
  }
}
