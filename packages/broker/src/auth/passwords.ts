import { randomBytes, type ScryptOptions, scrypt } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { safeEqual } from '../kernel/crypto.ts';

const KEY_BYTES = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

const scryptOptions = (logN: number): ScryptOptions => ({
  N: 2 ** logN,
  r: BLOCK_SIZE,
  p: PARALLELISM,
  // scrypt needs 128 * N * r bytes; leave headroom above Node's 32 MiB default.
  maxmem: 256 * 2 ** logN * BLOCK_SIZE,
});

/**
 * Why `password` cannot be used: it must have 8 to 72 characters (spec 2.1, counted in Unicode
 * code points). `undefined` when it can.
 */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  const { minLength, maxLength } = limits.password;
  return length < minLength || length > maxLength
    ? `A password has ${minLength} to ${maxLength} characters.`
    : undefined;
}

/**
 * A slow verifier of `password` (scrypt, N = 2^logN, r = 8, p = 1, 16-byte salt), written as
 * `scrypt$<logN>$<r>$<p>$<salt>$<key>` so the cost can be raised later without breaking old
 * verifiers. Only this string is stored, in `platform.accounts`. A password of the wrong
 * length ({@link passwordProblem}) is a `PlatformError` `INVALID_INPUT`.
 *
 * @example
 * ```ts
 * const verifier = await hashPassword('correct horse battery', 15);
 * await verifyPassword('correct horse battery', verifier); // true
 * ```
 */
export async function hashPassword(password: string, logN: number): Promise<string> {
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new PlatformError({ code: 'INVALID_INPUT', message: problem });
  const salt = randomBytes(16);
  const key = await derive(password, salt, scryptOptions(logN));
  return [
    'scrypt',
    logN,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** Whether `password` matches `verifier`; the key comparison is constant-time. */
export async function verifyPassword(password: string, verifier: string): Promise<boolean> {
  const [kind, logN, r, p, salt, key] = verifier.split('$');
  if (kind !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    ...scryptOptions(Number(logN)),
    r: Number(r),
    p: Number(p),
    maxmem: 256 * 2 ** Number(logN) * Number(r),
  });
  return safeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;

/**
 * Spends the same time as a real check when there is no verifier to check (unknown address,
 * account without a password), so response times do not tell which accounts exist.
 */
export async function burnPasswordCheck(password: string, logN: number): Promise<false> {
  dummy ??= hashPassword('not-a-real-password', logN);
  await verifyPassword(password, await dummy);
  return false;
}
