import type { VapidKeys } from './vapid-keys.ts';

// web-push signs JWTs valid for 12 hours; one is reused for 10 minutes per push service origin,
// well inside RFC 8292's 24-hour bound, so a burst of sends signs once instead of per message.
const REUSE_MILLISECONDS = 10 * 60 * 1000;

/**
 * The `Authorization: vapid t=…, k=…` header of RFC 8292 for a push service origin, signed with
 * the app's VAPID key through `web-push`, and reused for a while per origin.
 *
 * @example
 * ```ts
 * const signer = new VapidSigner(keys, 'mailto:ops@example.com');
 * const header = await signer.authorization('https://fcm.googleapis.com');
 * ```
 */
export class VapidSigner {
  readonly #keys: VapidKeys;
  readonly #subject: string;
  readonly #cache = new Map<string, { header: string; until: number }>();

  constructor(keys: VapidKeys, subject: string) {
    this.#keys = keys;
    this.#subject = subject;
  }

  /** The header for `audience` (the push service's origin, as the JWT's `aud`). */
  async authorization(audience: string, now = Date.now()): Promise<string> {
    const cached = this.#cache.get(audience);
    if (cached && cached.until > now) return cached.header;
    const { default: webpush } = await import('web-push');
    const { Authorization: header } = webpush.getVapidHeaders(
      audience,
      this.#subject,
      this.#keys.publicKey,
      this.#keys.privateKey,
      'aes128gcm',
    ) as { Authorization: string };
    this.#cache.set(audience, { header, until: now + REUSE_MILLISECONDS });
    return header;
  }
}
