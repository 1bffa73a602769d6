import { limits } from '@platform/schema';
import { AUTH_BASE } from '../http/paths.ts';
import { printable } from '../logs/printable.ts';
import type { Outbox } from '../outbox/outbox.ts';
import type { Accounts } from './accounts.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';
import type { BrowserSessions } from './browser-sessions.ts';
import type { ConfirmationCookies } from './confirmation-cookie.ts';
import { authCookies, clearCookie, isSecure, readCookie, setCookie } from './cookies.ts';
import { isSameOrigin } from './csrf.ts';
import {
  CLAIM_GRACE_SECONDS,
  type ClaimState,
  type EmailLink,
  type EmailLinks,
  type LinkProblem,
  type LinkPurpose,
} from './email-links.ts';
import { linkLifetime } from './pages.ts';

/** The review page of a usable link: its form nonce and the confirmation cookie to set. */
export type LinkPreview =
  | {
      readonly ok: true;
      readonly link: EmailLink;
      readonly preview: string;
      readonly setCookie: string;
    }
  | { readonly ok: false; readonly problem: LinkProblem };

/**
 * The explicit confirmation of a link. `not-previewed`: the POST lacks the review page's
 * confirmation cookie or nonce (another browser, too late, or a cross-site form).
 */
export type LinkConfirmation =
  /** `setCookie` deletes the confirmation cookie. */
  | { readonly ok: true; readonly link: EmailLink; readonly setCookie: string }
  | { readonly ok: false; readonly problem: LinkProblem | 'not-previewed' };

/**
 * What the requesting browser's claim found. `approved` carries the new session's cookie (and
 * the deletion of the claim cookie); `refused`: approved, but the account is paused or gone.
 */
export type LinkClaim =
  | Exclude<ClaimState, { readonly state: 'approved' }>
  | { readonly state: 'refused' }
  | {
      readonly state: 'approved';
      readonly link: EmailLink;
      readonly setCookies: readonly string[];
    };

/** The stores {@link EmailLinkSignIn} works on. */
export interface EmailLinkStores {
  readonly links: EmailLinks;
  readonly accounts: Accounts;
  readonly confirmations: ConfirmationCookies;
}

/**
 * The email-link flow (spec 5.1.2): a request mails a one-time link and gives the requesting
 * browser its claim; the link's review page approves nothing until its Confirm button; the
 * requesting browser then claims the approval as its own session.
 */
export class EmailLinkSignIn {
  readonly #stores: EmailLinkStores;
  readonly #sessions: BrowserSessions;
  readonly #outbox: Outbox;
  readonly #options: ResolvedAuthOptions;

  constructor(
    stores: EmailLinkStores,
    sessions: BrowserSessions,
    outbox: Outbox,
    options: ResolvedAuthOptions,
  ) {
    this.#stores = stores;
    this.#sessions = sessions;
    this.#outbox = outbox;
    this.#options = options;
  }

  /** `FEATURE_NOT_AVAILABLE` when no email can be sent (a service without outbound mail). */
  requireDelivery(): void {
    this.#outbox.requireDelivery();
  }

  /**
   * Sends an email link to an address: captured in the outbox and printed in the terminal in
   * development, sent by the outbox's mail server under `platform serve` (and printed nowhere). Resolves to the claim value of the requesting browser.
   */
  async send(
    email: string,
    purpose: LinkPurpose,
    returnTo: string,
    request: Request,
  ): Promise<string> {
    // No link is made that no email can carry.
    this.#outbox.requireDelivery();
    const { token, claim } = await this.#stores.links.request(email, purpose, returnTo);
    // The broker's own URL: a Host header chosen by the requester never names the link's site.
    const origin = new URL(this.#options.appUrl ?? request.url).origin;
    const url = `${origin}${AUTH_BASE}/confirm?token=${token}`;
    const app = this.#options.displayName;
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
    // Only development email's link is printed: a link sent for real is a key to the account,
    // and the service's log is no place for it.
    if (this.#outbox.capturing) {
      this.#options.print(printable(`[auth] ${subject} (${email}, valid ${linkLifetime}): ${url}`));
    }
    return claim;
  }

  /**
   * Sends a sign-in link, unless registration is off and the address has no account. Resolves
   * to the claim cookie's `Set-Cookie`, or `undefined` when no link was sent.
   */
  async requestSignIn(
    email: string,
    returnTo: string,
    request: Request,
  ): Promise<string | undefined> {
    // Before the address is looked up: without mail every address gets the same answer.
    this.#outbox.requireDelivery();
    if (!this.#options.registration && (await this.#stores.accounts.byEmail(email)) === undefined) {
      this.#options.print(
        printable(`[auth] No account for ${email} and registration is off; no link sent.`),
      );
      return undefined;
    }
    const claim = await this.send(email, 'sign-in', returnTo, request);
    return setCookie(authCookies.claim, claim, {
      secure: this.#secure(request),
      maxAgeSeconds: limits.emailLinkSeconds + CLAIM_GRACE_SECONDS,
    });
  }

  /** The link behind `token` for its review page; a GET approves nothing. */
  async preview(token: string, request: Request): Promise<LinkPreview> {
    const found = await this.#stores.links.preview(token);
    if (!found.ok) return found;
    const issued = this.#stores.confirmations.issue(token, this.#secure(request));
    return { ok: true, link: found.link, preview: issued.preview, setCookie: issued.setCookie };
  }

  /**
   * Approves the link, once, from its review page (the confirmation cookie and the page's
   * `preview` nonce). The explicit confirmation proves the address (spec 3.3): an unknown
   * address is registered confirmed, an unconfirmed or paused account becomes confirmed. Only
   * a confirmation in the registering browser keeps what the registrant made (its session, the
   * password); any other drops them (`Accounts.confirm`).
   */
  async confirm(request: Request, token: string, preview: string): Promise<LinkConfirmation> {
    const { links, accounts, confirmations } = this.#stores;
    const cookie = readCookie(request, authCookies.confirm);
    if (!isSameOrigin(request) || !confirmations.verify(cookie, token, preview)) {
      return { ok: false, problem: 'not-previewed' };
    }
    const approved = await links.approve(token, async (link) => {
      const account =
        (await accounts.byEmail(link.email)) ?? (await accounts.create(link.email, 'confirmed'));
      if (account.state !== 'confirmed') {
        await accounts.confirm(account.id, await this.#registrantSession(request, account.id));
      }
      return account.id;
    });
    if (!approved.ok) return approved;
    const setCookie = clearCookie(authCookies.confirm, this.#secure(request));
    return { ok: true, link: approved.link, setCookie };
  }

  /**
   * The claim of the requesting browser (its claim cookie, same origin only): an approval
   * becomes this browser's session, exactly once.
   */
  async claim(request: Request): Promise<LinkClaim> {
    const value = readCookie(request, authCookies.claim);
    const claim: ClaimState =
      !isSameOrigin(request) || value === undefined
        ? { state: 'invalid' }
        : await this.#stores.links.claim(value, true);
    if (claim.state !== 'approved') return claim;
    const account = await this.#stores.accounts.byId(claim.accountId);
    if (account === undefined || account.state === 'paused') return { state: 'refused' };
    const session = await this.#sessions.start(account, request);
    const setCookies = [session, clearCookie(authCookies.claim, this.#secure(request))];
    return { state: 'approved', link: claim.link, setCookies };
  }

  // The confirming browser's own provisional session of this account: the registrant, who
  // holds it, has now also shown they read the address's mail.
  async #registrantSession(request: Request, accountId: string): Promise<string | undefined> {
    const session = await this.#sessions.current(request);
    return session?.accountId === accountId && session.provisional ? session.id : undefined;
  }

  #secure(request: Request): boolean {
    return isSecure(request, this.#options.secureCookies);
  }
}
