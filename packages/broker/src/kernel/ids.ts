import { randomFillSync } from 'node:crypto';

/** Bytes fetched from the CSPRNG at once; each byte is handed out once, then overwritten. */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let used = POOL_BYTES;

/**
 * `bytes` random bytes from the CSPRNG as base64url, for ids and tokens minted on every call
 * (request ids, invocation tokens). The bytes come from a pool filled in one `randomFillSync`,
 * like `crypto.randomUUID`'s own cache: a separate `randomBytes` per id cost a CSPRNG call and a
 * buffer each, on the hot path of every Function call. No byte is handed out twice.
 *
 * @example
 * ```ts
 * const token = `inv_${randomBase64url(24)}`;
 * ```
 */
export function randomBase64url(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes > POOL_BYTES)
    throw new TypeError(`randomBase64url: bytes must be an integer in 1..${POOL_BYTES}`);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString('base64url', used, used + bytes);
  // Handed-out bytes are wiped so the pool never holds a live token's bytes for long.
  pool.fill(0, used, used + bytes);
  used += bytes;
  return text;
}

/** A new request id: `req_` and 16 random base64url characters (96 bits). */
export function newRequestId(): string {
  return `req_${randomBase64url(12)}`;
}
