import { isEmailAddress } from '@platform/schema';

/**
 * The one form an email address is compared and stored in: trimmed and lower-cased. Accounts,
 * memberships, sign-in limits and confirmations all key on it, so an address typed as
 * ` Ada@Example.com` finds the account created as `ada@example.com`.
 *
 * @example
 * ```ts
 * normalizeEmail(' Ada@Example.com'); // 'ada@example.com'
 * ```
 */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

/**
 * {@link normalizeEmail}'s form of `value`; `undefined` when it is not one plain address (the
 * rule of `isEmailAddress`, the same as for sending mail: no control characters, so an address
 * can never print as more than one line of the terminal or reach the database with a NUL).
 *
 * @example
 * ```ts
 * parseEmail('Ada@Example.com'); // 'ada@example.com'
 * parseEmail('not an address'); // undefined
 * ```
 */
export function parseEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = normalizeEmail(value);
  return isEmailAddress(email) ? email : undefined;
}
