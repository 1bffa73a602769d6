import type { Accounts } from './accounts.ts';
import type { BrowserSessions } from './browser-sessions.ts';
import type { ConfirmationCookies } from './confirmation-cookie.ts';
import { authCookies, clearCookie, readCookie } from './cookies.ts';
import { isSameOrigin } from './csrf.ts';

/**
 * An explicit confirmation of a person's address outside the email-link sign-in (an onboarding
 * or approval link). Following a link proves nothing, since mail scanners and prefetchers open
 * links too: the review page sets a cookie bound to the link and to its own nonce, and only a
 * same-origin post carrying both confirms.
 */
export class ExplicitConfirmation {
  readonly #cookies: ConfirmationCookies;
  readonly #accounts: Accounts;
  readonly #sessions: BrowserSessions;

  constructor(cookies: ConfirmationCookies, accounts: Accounts, sessions: BrowserSessions) {
    this.#cookies = cookies;
    this.#accounts = accounts;
    this.#sessions = sessions;
  }

  /** The review page's side: the preview-bound cookie for `token`, and the page's nonce. */
  preview(token: string, secure: boolean): { preview: string; setCookie: string } {
    return this.#cookies.issue(token, secure);
  }

  /**
   * The confirmation itself: same origin, carrying the cookie the review page of `token` set
   * and that page's `preview` nonce (a prefetcher has neither).
   */
  check(request: Request, token: string, preview: string): boolean {
    const cookie = readCookie(request, authCookies.confirm);
    return isSameOrigin(request) && this.#cookies.verify(cookie, token, preview);
  }

  /**
   * After a confirmation in this browser: the account is confirmed (sessions made before end,
   * spec 3.3) and this browser gets a normal session. Resolves to the `Set-Cookie` lines: the
   * session, and the deletion of the confirmation cookie (`secure` as the request's cookies).
   */
  async confirmInThisBrowser(
    accountId: string,
    request: Request,
    secure: boolean,
  ): Promise<string[]> {
    const found = await this.#accounts.byId(accountId);
    if (found === undefined) throw new Error('The account to confirm is gone');
    if (found.state !== 'confirmed') await this.#accounts.confirm(accountId);
    const account = (await this.#accounts.byId(accountId)) ?? found;
    const session = await this.#sessions.start(account, request);
    return [session, clearCookie(authCookies.confirm, secure)];
  }
}
