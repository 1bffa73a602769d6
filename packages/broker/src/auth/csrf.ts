import { hmac, randomSecret, safeEqual } from '../kernel/crypto.ts';
import { type AuthCookie, authCookies, readCookie, setCookie } from './cookies.ts';

/**
 * Whether a state-changing request comes from a page of this origin: `Sec-Fetch-Site`, when
 * the browser sends it, must be `same-origin`; `Origin` (or, without it, `Referer`) must be
 * this origin. A request with neither header is refused: browsers send `Origin` on every POST.
 */
export function isSameOrigin(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return false;
  const own = new URL(request.url).origin;
  const origin = request.headers.get('origin');
  if (origin !== null) return origin === own;
  const referer = request.headers.get('referer');
  if (referer === null) return false;
  try {
    return new URL(referer).origin === own;
  } catch {
    return false;
  }
}

/**
 * Per-form CSRF tokens (double submit, signed): the HttpOnly `platform_csrf` cookie holds a
 * random key, every form carries HMAC(broker key, cookie). A cross-site page can neither read
 * the cookie nor compute the token; SameSite=Strict keeps the cookie off cross-site requests.
 */
export class CsrfTokens {
  readonly #key: string;
  readonly #cookie: AuthCookie;

  /** `cookie` holds the browser's random key. @default the sign-in pages' `platform_csrf` */
  constructor(key: string, cookie: AuthCookie = authCookies.csrf) {
    this.#key = key;
    this.#cookie = cookie;
  }

  /** The form token for this browser, and the cookie to set when it has none yet. */
  issue(request: Request, secure: boolean): { token: string; setCookie?: string } {
    const existing = readCookie(request, this.#cookie);
    if (existing !== undefined) return { token: this.#tokenFor(existing) };
    const fresh = randomSecret(18);
    return {
      token: this.#tokenFor(fresh),
      setCookie: setCookie(this.#cookie, fresh, { secure }),
    };
  }

  /** Whether the request is same-origin and `formToken` matches the browser's CSRF cookie. */
  verify(request: Request, formToken: unknown): boolean {
    const cookie = readCookie(request, this.#cookie);
    return (
      isSameOrigin(request) &&
      cookie !== undefined &&
      typeof formToken === 'string' &&
      safeEqual(formToken, this.#tokenFor(cookie))
    );
  }

  #tokenFor(cookie: string): string {
    // Each cookie's tokens are its own: a sign-in form token is no console token.
    const purpose = this.#cookie === authCookies.csrf ? 'csrf' : this.#cookie.name;
    return hmac(this.#key, `${purpose}:${cookie}`);
  }
}
