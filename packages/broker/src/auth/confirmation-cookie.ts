import { limits } from '@platform/schema';
import type { Clock } from '../kernel/clock.ts';
import { hmac, randomSecret, safeEqual, sha256 } from '../kernel/crypto.ts';
import { authCookies, setCookie } from './cookies.ts';

/**
 * The preview-bound confirmation cookie (spec 2.1, 5.2.4). Rendering the review page of an
 * email link sets `platform_confirm` = `<issued ms>.<nonce>.<HMAC(link token digest, nonce,
 * issued)>` (HttpOnly, SameSite=Strict, Path=/_platform/auth/confirm, for
 * `limits.confirmationCookieSeconds`, "short-lived" in spec 2.1) and puts the nonce in the form. The approving POST must
 * carry both, for that same link: a prefetcher that only GETs approves nothing, and a cookie
 * from one preview cannot approve another link.
 */
export class ConfirmationCookies {
  readonly #key: string;
  readonly #clock: Clock;

  constructor(key: string, clock: Clock) {
    this.#key = key;
    this.#clock = clock;
  }

  /** A new preview of `token`: the nonce for the form and the `Set-Cookie`. */
  issue(token: string, secure: boolean): { preview: string; setCookie: string } {
    const preview = randomSecret(18);
    const issued = String(this.#clock.now().getTime());
    const value = `${issued}.${preview}.${this.#mac(token, preview, issued)}`;
    return {
      preview,
      setCookie: setCookie(authCookies.confirm, value, {
        secure,
        maxAgeSeconds: limits.confirmationCookieSeconds,
      }),
    };
  }

  /** Whether `cookie` was issued for a preview of `token` with this `preview` nonce, recently. */
  verify(cookie: string | undefined, token: string, preview: string): boolean {
    if (cookie === undefined) return false;
    const [issued, nonce, mac] = cookie.split('.');
    if (issued === undefined || nonce === undefined || mac === undefined) return false;
    const age = this.#clock.now().getTime() - Number(issued);
    if (!(age >= 0 && age <= limits.confirmationCookieSeconds * 1000)) return false;
    return safeEqual(nonce, preview) && safeEqual(mac, this.#mac(token, nonce, issued));
  }

  #mac(token: string, nonce: string, issued: string): string {
    return hmac(this.#key, `confirm:${sha256(token)}:${nonce}:${issued}`);
  }
}
