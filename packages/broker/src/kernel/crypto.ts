import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A random secret of `bytes` bytes as base64url (256 bits by default): session refresh tokens,
 * email-link tokens, browser claims, app access tokens, CSRF keys.
 *
 * @example
 * ```ts
 * const refresh = randomSecret(); // 43 characters
 * ```
 */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 of `value` as hex. The broker stores only these digests of its high-entropy secrets
 * (refresh tokens, email links, claims, app access tokens), never the secrets themselves.
 */
export function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** HMAC-SHA-256 of `value` under `key`, as base64url (CSRF form tokens, confirmation cookies). */
export function hmac(key: string, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

/**
 * Compares two secrets, both strings or both bytes, in time that does not depend on where they
 * differ: both are hashed first, so their lengths do not leak either. The broker's one
 * constant-time compare (tokens, cookies, derived password keys).
 *
 * @example
 * ```ts
 * safeEqual(presented, devToken); // strings
 * safeEqual(derivedKey, storedKey); // bytes
 * ```
 */
export function safeEqual(a: string, b: string): boolean;
export function safeEqual(a: Uint8Array, b: Uint8Array): boolean;
export function safeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  // `update` reads a string as UTF-8 and bytes as they are.
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
