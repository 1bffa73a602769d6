import { limits } from '@platform/schema';
import type { PushSubscriptionKeys } from './subscription-check.ts';
import type { VapidSigner } from './vapid-signer.ts';

/** What became of one push message to one device. */
export type DeliveryOutcome =
  /** The push service accepted it (2xx). */
  | { readonly kind: 'delivered' }
  /** 404 or 410: the subscription no longer exists; forget it. */
  | { readonly kind: 'gone'; readonly status: number }
  /** Unreachable, or 429/5xx on every attempt: may succeed later. */
  | { readonly kind: 'unavailable'; readonly status: number | null; readonly reason: string }
  /**
   * Any other answer (400, 403, 413…, and any redirect): this message will never be accepted as
   * it is; `null` when it was not sent, its endpoint being one the broker no longer sends to.
   */
  | { readonly kind: 'rejected'; readonly status: number | null };

/** How {@link deliverPush} sends. */
export interface DeliveryOptions {
  /** Signs the VAPID header with the app's key. */
  readonly signer: VapidSigner;
  /** Waits between attempts; tests and benches pass a faster one. @default setTimeout */
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /** Per-attempt time limit. @default 10 seconds */
  readonly timeoutMilliseconds?: number;
}

const wait = (milliseconds: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/** Seconds of a `Retry-After` header (a number or an HTTP date), or `undefined`. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

/**
 * Encrypts `payload` for one subscription (RFC 8291, aes128gcm) and adds the VAPID header for
 * the endpoint's origin (RFC 8292), both with `web-push`, and POSTs it. 429 and 5xx answers and network
 * failures are retried up to `limits.push.sendMaxAttempts` times with doubling backoff (or the
 * service's `Retry-After`, up to `limits.push.retryAfterMaxSeconds`). Each attempt is encrypted
 * afresh: a new salt and sender key per message, as RFC 8291 requires. The request is built from
 * `web-push`'s parts rather than its `sendNotification`, which speaks https alone (the local push
 * service is plain http on loopback) and parses URLs with Node's deprecated `url.parse`.
 *
 * @example
 * ```ts
 * const outcome = await deliverPush(subscription, bytes, { signer });
 * ```
 */
export async function deliverPush(
  subscription: PushSubscriptionKeys,
  payload: Uint8Array,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const sleep = options.sleep ?? wait;
  const attempts = limits.push.sendMaxAttempts;
  let last: DeliveryOutcome = { kind: 'unavailable', status: null, reason: 'not sent' };
  // Loaded with the first push: most runs send none.
  const { default: webpush } = await import('web-push');
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const { cipherText } = webpush.encrypt(
      subscription.keys.p256dh,
      subscription.keys.auth,
      Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength),
      'aes128gcm',
    );
    let response: Response;
    try {
      response = await fetch(subscription.endpoint, {
        method: 'POST',
        headers: {
          TTL: String(limits.push.ttlSeconds),
          Urgency: 'normal',
          'Content-Type': 'application/octet-stream',
          'Content-Encoding': 'aes128gcm',
          Authorization: await options.signer.authorization(new URL(subscription.endpoint).origin),
        },
        body: new Uint8Array(cipherText),
        // A push service answers; it never redirects. Following one would re-POST the message
        // (307) or reach any host (302) the endpoint check never saw.
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMilliseconds ?? 10_000),
      });
      // The body is the push service's business; read it so the connection is reused.
      await response.arrayBuffer().catch(() => undefined);
    } catch (error) {
      last = {
        kind: 'unavailable',
        status: null,
        reason:
          error instanceof Error
            ? ((error.cause as Error | undefined)?.message ?? error.message)
            : String(error),
      };
      if (attempt < attempts) await sleep(limits.push.retryBaseMilliseconds * 2 ** (attempt - 1));
      continue;
    }
    if (response.ok) return { kind: 'delivered' };
    if (response.status === 404 || response.status === 410) {
      return { kind: 'gone', status: response.status };
    }
    // A redirect (3xx) lands here too: a failed send, never followed.
    if (response.status !== 429 && response.status < 500) {
      return { kind: 'rejected', status: response.status };
    }
    last = { kind: 'unavailable', status: response.status, reason: `HTTP ${response.status}` };
    const after = retryAfterSeconds(response.headers.get('retry-after'));
    if (after !== undefined && after > limits.push.retryAfterMaxSeconds) break;
    if (attempt < attempts) {
      await sleep(
        after === undefined ? limits.push.retryBaseMilliseconds * 2 ** (attempt - 1) : after * 1000,
      );
    }
  }
  return last;
}
