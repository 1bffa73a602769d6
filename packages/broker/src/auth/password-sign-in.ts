import type { Account, Accounts } from './accounts.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';
import type { BrowserSessions } from './browser-sessions.ts';
import type { EmailLinkSignIn } from './email-link-sign-in.ts';
import { burnPasswordCheck, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { FailureLimiter } from './rate-limit.ts';

/** A password sign-in to make, as the sign-in form posts it. */
export interface PasswordAttempt {
  /** A parsed, normalised address. */
  readonly email: string;
  readonly password: string;
  /** Where the confirmation link of a new or paused account leads back to. */
  readonly returnTo: string;
  /**
   * Who is trying, for the per-client limit (failures are limited per client as well as per
   * address): see `attemptClient`.
   */
  readonly client: string;
}

/** How a password sign-in ended. */
export type PasswordSignInResult =
  /** Signed in, or registered with a provisional session: `setCookie` is the session cookie. */
  | { readonly outcome: 'signed-in'; readonly setCookie: string }
  /**
   * Too many failures for the address or the client (`failures`), or too many new accounts
   * from the client (`registrations`): try again after this many seconds.
   */
  | {
      readonly outcome: 'rate-limited';
      readonly retryAfterSeconds: number;
      readonly limit: 'failures' | 'registrations';
    }
  /** The password cannot be one (its length); `message` says why. */
  | { readonly outcome: 'invalid'; readonly message: string }
  /** Unknown address (registration off), no password set, or the wrong one: alike on purpose. */
  | { readonly outcome: 'wrong' }
  /** The account is paused for verification: a new confirmation link was sent. */
  | { readonly outcome: 'paused' };

/**
 * Passwords (spec 5.1.3-4): sign-in with a configured password, registration of an unknown
 * address (unconfirmed account, confirmation email, provisional session until the 24-hour
 * deadline), and setting a password. Failures are limited per address and per client, and
 * registrations per client (`options.passwordRateLimit`, in memory).
 */
export class PasswordSignIn {
  readonly #accounts: Accounts;
  readonly #links: EmailLinkSignIn;
  readonly #sessions: BrowserSessions;
  readonly #options: ResolvedAuthOptions;
  readonly #emailFailures: FailureLimiter;
  readonly #clientFailures: FailureLimiter;
  // Not failures, but counted the same way: a registration is a success that costs an account
  // and an email.
  readonly #registrations: FailureLimiter;

  constructor(
    accounts: Accounts,
    links: EmailLinkSignIn,
    sessions: BrowserSessions,
    options: ResolvedAuthOptions,
  ) {
    this.#accounts = accounts;
    this.#links = links;
    this.#sessions = sessions;
    this.#options = options;
    const { perEmail, perClient, registrationsPerClient, windowSeconds } =
      options.passwordRateLimit;
    this.#emailFailures = new FailureLimiter(options.clock, perEmail, windowSeconds);
    this.#clientFailures = new FailureLimiter(options.clock, perClient, windowSeconds);
    this.#registrations = new FailureLimiter(options.clock, registrationsPerClient, windowSeconds);
  }

  /** Signs in (or registers) with a password; `request` is the form post. */
  async signIn(attempt: PasswordAttempt, request: Request): Promise<PasswordSignInResult> {
    const { email, password, returnTo } = attempt;
    const emailKey = `email:${email}`;
    const clientKey = `client:${attempt.client}`;
    const wait = Math.max(
      this.#emailFailures.blockedFor(emailKey),
      this.#clientFailures.blockedFor(clientKey),
    );
    if (wait > 0) return { outcome: 'rate-limited', retryAfterSeconds: wait, limit: 'failures' };
    const problem = passwordProblem(password);
    if (problem !== undefined) return { outcome: 'invalid', message: problem };
    // Counted before the slow check (no await since `blockedFor`): attempts arriving meanwhile
    // already see this one, so simultaneous posts cannot all slip under the limits.
    const emailSlot = this.#emailFailures.reserve(emailKey);
    const clientSlot = this.#clientFailures.reserve(clientKey);
    const notAFailure = () => {
      this.#emailFailures.release(emailKey, emailSlot);
      this.#clientFailures.release(clientKey, clientSlot);
    };
    const account = await this.#accounts.byEmail(email);
    if (account === undefined && this.#options.registration) {
      notAFailure();
      // Checked and counted in one step (no await between), as the failures are.
      const registrationWait = this.#registrations.blockedFor(clientKey);
      if (registrationWait > 0) {
        return {
          outcome: 'rate-limited',
          retryAfterSeconds: registrationWait,
          limit: 'registrations',
        };
      }
      this.#registrations.reserve(clientKey);
      const verifier = await hashPassword(password, this.#options.passwordCost);
      const created = await this.#accounts.create(email, 'unconfirmed', verifier);
      await this.#links.send(email, 'confirm', returnTo, request);
      return { outcome: 'signed-in', setCookie: await this.#sessions.start(created, request) };
    }
    const matches = await this.#matches(account, password);
    if (account === undefined || !matches) return { outcome: 'wrong' };
    notAFailure();
    this.#emailFailures.reset(emailKey);
    if (account.state === 'paused') {
      await this.#links.send(email, 'confirm', returnTo, request);
      return { outcome: 'paused' };
    }
    return { outcome: 'signed-in', setCookie: await this.#sessions.start(account, request) };
  }

  /**
   * Sets or replaces an account's password; email-link sign-in keeps working (spec 2.1). Every
   * session of the account except `keepSession` (the browser that changed it) ends, so whoever
   * signed in with the old password is out.
   */
  async setPassword(accountId: string, password: string, keepSession?: string): Promise<void> {
    const verifier = await hashPassword(password, this.#options.passwordCost);
    await this.#accounts.setVerifier(accountId, verifier);
    await this.#accounts.endSessionsElsewhere(accountId, keepSession);
    await this.#sessions.endOthers(accountId, keepSession);
  }

  // Without a verifier (unknown address, no password set) the check still takes its time, so
  // response times do not tell which accounts exist.
  async #matches(account: Account | undefined, password: string): Promise<boolean> {
    const verifier = account === undefined ? null : await this.#accounts.verifierOf(account.id);
    return verifier === null
      ? burnPasswordCheck(password, this.#options.passwordCost)
      : verifyPassword(password, verifier);
  }
}
