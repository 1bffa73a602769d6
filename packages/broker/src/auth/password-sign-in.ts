import type { Database } from '../db/database.ts';
import type { Account, Accounts } from './accounts.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';
import type { BrowserSessions } from './browser-sessions.ts';
import type { EmailLinkSignIn } from './email-link-sign-in.ts';
import { burnPasswordCheck, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { type LimitedKey, SignInLimits } from './rate-limit.ts';

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
 * registrations per client (`options.passwordRateLimit`), counted in the database that holds
 * the accounts so that every broker on it meets the same limits.
 */
export class PasswordSignIn {
  readonly #accounts: Accounts;
  readonly #links: EmailLinkSignIn;
  readonly #sessions: BrowserSessions;
  readonly #options: ResolvedAuthOptions;
  readonly #limits: SignInLimits;

  /** `limitsDb` is the database that holds the accounts, where every broker counts attempts. */
  constructor(
    accounts: Accounts,
    links: EmailLinkSignIn,
    sessions: BrowserSessions,
    options: ResolvedAuthOptions,
    limitsDb: Database,
  ) {
    this.#accounts = accounts;
    this.#links = links;
    this.#sessions = sessions;
    this.#options = options;
    this.#limits = new SignInLimits(limitsDb, options.clock);
  }

  /** Signs in (or registers) with a password; `request` is the form post. */
  async signIn(attempt: PasswordAttempt, request: Request): Promise<PasswordSignInResult> {
    const { email, password, returnTo } = attempt;
    const { perEmail, perClient, registrationsPerClient, windowSeconds } =
      this.#options.passwordRateLimit;
    const byEmail: LimitedKey = { limit: 'email', key: email, max: perEmail, windowSeconds };
    const byClient: LimitedKey = {
      limit: 'client',
      key: attempt.client,
      max: perClient,
      windowSeconds,
    };
    // Counted as a failure before the slow check, in one step with the limit's check, so that
    // simultaneous posts (to this broker or another on the same accounts) cannot all slip under
    // the limits; taken back once the attempt turns out not to be a failure.
    const slot = await this.#limits.reserve([byEmail, byClient]);
    if (!slot.reserved) {
      return {
        outcome: 'rate-limited',
        retryAfterSeconds: slot.retryAfterSeconds,
        limit: 'failures',
      };
    }
    const notAFailure = () => this.#limits.release(slot.handles);
    const problem = passwordProblem(password);
    if (problem !== undefined) {
      await notAFailure();
      return { outcome: 'invalid', message: problem };
    }
    const account = await this.#accounts.byEmail(email);
    if (account === undefined && this.#options.registration) {
      await notAFailure();
      // No account is made that no email can confirm (a service without outbound mail).
      this.#links.requireDelivery();
      const registration = await this.#limits.reserve([
        { limit: 'registration', key: attempt.client, max: registrationsPerClient, windowSeconds },
      ]);
      if (!registration.reserved) {
        return {
          outcome: 'rate-limited',
          retryAfterSeconds: registration.retryAfterSeconds,
          limit: 'registrations',
        };
      }
      const verifier = await hashPassword(password, this.#options.passwordCost);
      const created = await this.#accounts.create(email, 'unconfirmed', verifier);
      await this.#links.send(email, 'confirm', returnTo, request);
      return { outcome: 'signed-in', setCookie: await this.#sessions.start(created, request) };
    }
    const matches = await this.#matches(account, password);
    if (account === undefined || !matches) return { outcome: 'wrong' };
    await notAFailure();
    await this.#limits.reset('email', email);
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
