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
 * const nonce = randomBase64url(12);
 * ```
 */
export function randomBase64url(bytes: number): string {
  return randomText(bytes, 'base64url');
}

function randomText(bytes: number, encoding: IdEncoding): string {
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes > POOL_BYTES)
    throw new TypeError(`randomBase64url: bytes must be an integer in 1..${POOL_BYTES}`);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString(encoding, used, used + bytes);
  // Handed-out bytes are wiped so the pool never holds a live token's bytes for long.
  pool.fill(0, used, used + bytes);
  used += bytes;
  return text;
}

/** How an id writes its random bytes. */
export type IdEncoding = 'base64url' | 'hex';

/** The shape of one kind of id: `<prefix>_` and `bytes` random bytes written in `encoding`. */
export interface IdFormat {
  readonly prefix: string;
  readonly bytes: number;
  readonly encoding: IdEncoding;
}

/**
 * Every kind of id the broker mints, with its prefix: the one list to read before choosing a
 * new prefix. Ids are stored (and some are shown or sent), so each kind keeps the form it was
 * first minted in: the older kinds write hex, the others base64url. A new kind takes
 * base64url and at least 12 bytes (96 bits).
 */
export const idFormats = {
  /** A request's id, on every response and log line (`x-request-id`). */
  request: { prefix: 'req', bytes: 12, encoding: 'base64url' },
  /** A session's id (its secret is a separate refresh token). */
  session: { prefix: 'ses', bytes: 16, encoding: 'base64url' },
  /** A sign-in or confirmation email link. */
  emailLink: { prefix: 'lnk', bytes: 12, encoding: 'base64url' },
  /** An app access token's id (the token itself is a secret of its own). */
  appToken: { prefix: 'tok', bytes: 9, encoding: 'base64url' },
  /** An agent credential's id. */
  agentCredential: { prefix: 'agent', bytes: 9, encoding: 'base64url' },
  /** A request for an app access token, approved in the browser. */
  tokenRequest: { prefix: 'tokreq', bytes: 12, encoding: 'base64url' },
  /** A request for an agent credential, approved in the browser. */
  agentRequest: { prefix: 'agentreq', bytes: 12, encoding: 'base64url' },
  /** An account credential's id (the CLI signed in to a service). */
  accountCredential: { prefix: 'acct', bytes: 9, encoding: 'base64url' },
  /** A request for an account credential (`platform login`), approved in the browser. */
  accountRequest: { prefix: 'acctreq', bytes: 12, encoding: 'base64url' },
  /** An onboarding request of a new machine. */
  onboardingRequest: { prefix: 'onb', bytes: 12, encoding: 'base64url' },
  /** An account deletion in progress. */
  accountDeletion: { prefix: 'del', bytes: 12, encoding: 'base64url' },
  /** An integration connection. */
  connection: { prefix: 'con', bytes: 12, encoding: 'base64url' },
  /** An integration binding. */
  binding: { prefix: 'bnd', bytes: 12, encoding: 'base64url' },
  /** An integration event without an id of its provider's. */
  integrationEvent: { prefix: 'evt', bytes: 12, encoding: 'base64url' },
  /** One delivery of an integration event to a consumer. */
  eventDelivery: { prefix: 'dlv', bytes: 12, encoding: 'base64url' },
  /**
   * A Function invocation's token: a bearer secret rather than a name, hence its 24 bytes; it
   * takes the same prefix-and-random form, so it is minted here too.
   */
  invocationToken: { prefix: 'inv', bytes: 24, encoding: 'base64url' },
  /** A background job. */
  job: { prefix: 'job', bytes: 16, encoding: 'hex' },
  /** A job worker, for the claims it holds. */
  jobWorker: { prefix: 'worker', bytes: 8, encoding: 'hex' },
  /** A stored file. */
  file: { prefix: 'file', bytes: 16, encoding: 'hex' },
  /** A received email. */
  inboundMail: { prefix: 'inmail', bytes: 12, encoding: 'hex' },
  /** A push message sent. */
  push: { prefix: 'push', bytes: 12, encoding: 'hex' },
  /** A deployment of an app to `platform serve`: one immutable revision. */
  deployment: { prefix: 'dep', bytes: 12, encoding: 'base64url' },
  /** A backup of an app's database and the file generations it references. */
  backup: { prefix: 'bak', bytes: 12, encoding: 'hex' },
  /** An email in the outbox. */
  email: { prefix: 'email', bytes: 12, encoding: 'hex' },
} as const satisfies Record<string, IdFormat>;

/** A kind of id the broker mints (a key of {@link idFormats}). */
export type IdKind = keyof typeof idFormats;

/**
 * A new id of `kind`: its prefix, `_`, and fresh random bytes from the CSPRNG pool in the
 * kind's encoding ({@link idFormats}).
 *
 * @example
 * ```ts
 * const id = newId('job'); // 'job_' and 32 hex digits
 * ```
 */
export function newId(kind: IdKind): string {
  const format: IdFormat = idFormats[kind];
  return `${format.prefix}_${randomText(format.bytes, format.encoding)}`;
}
