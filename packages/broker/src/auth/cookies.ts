import { parse, serialize } from 'hono/utils/cookie';
import { AUTH_BASE } from '../http/paths.ts';

/**
 * The broker's cookies. All are HttpOnly (no script can read them), `Secure` on https, and as
 * narrow in path and lifetime as their job allows.
 */
export const authCookies = {
  /** `<session id>.<refresh token>`; the whole app needs it (navigations and the session route). */
  session: { name: 'platform_session', path: '/', sameSite: 'Lax' },
  /** The browser claim of an email-link request: only the claim route ever receives it. */
  claim: { name: 'platform_claim', path: `${AUTH_BASE}/claim`, sameSite: 'Lax' },
  /** The preview-bound confirmation cookie: only the confirm route receives it. */
  confirm: { name: 'platform_confirm', path: `${AUTH_BASE}/confirm`, sameSite: 'Strict' },
  /** The CSRF key behind every form token of the sign-in pages. */
  csrf: { name: 'platform_csrf', path: AUTH_BASE, sameSite: 'Strict' },
  /** The nonce a sign-in handed over from another app of the organisation must match. */
  handoff: { name: 'platform_handoff', path: `${AUTH_BASE}/handoff`, sameSite: 'Lax' },
  /**
   * The CSRF key behind the app console's form token: the console's state changes go to the
   * owner API (`/v1/...`) as well as its page, so it lives on `/`. Strict: never sent cross-site.
   */
  consoleCsrf: { name: 'platform_console_csrf', path: '/', sameSite: 'Strict' },
  /** HMAC of the dev token, set by the dashboard's dev-token link: GET/HEAD of the control plane only. */
  developer: { name: 'platform_dev', path: '/', sameSite: 'Strict' },
} as const;

/** One of {@link authCookies}. */
export type AuthCookie = (typeof authCookies)[keyof typeof authCookies];

/**
 * A cookie's name, path and SameSite: one of {@link authCookies}, or a feature's own cookie
 * (a pending OAuth sign-in's, named after its state).
 */
export interface CookieSpec {
  readonly name: string;
  readonly path: string;
  readonly sameSite: 'Lax' | 'Strict';
}

/**
 * Whether the cookies set in answer to `request` get `Secure`: `forced` when the broker's
 * options set it, else whether the request came over https.
 */
export function isSecure(request: Request, forced: boolean | undefined): boolean {
  return forced ?? new URL(request.url).protocol === 'https:';
}

// Browsers cap a cookie's lifetime at 400 days, and hono refuses to write a longer one.
const MAX_COOKIE_AGE_SECONDS = 400 * 24 * 60 * 60;

/**
 * A `Set-Cookie` value for `cookie` (hono's serializer: the value URI-encoded, the attributes
 * checked); `maxAgeSeconds` absent means until the browser closes.
 */
export function setCookie(
  cookie: CookieSpec,
  value: string,
  options: { secure: boolean; maxAgeSeconds?: number | undefined },
): string {
  return serialize(cookie.name, value, {
    path: cookie.path,
    httpOnly: true,
    sameSite: cookie.sameSite,
    secure: options.secure,
    ...(options.maxAgeSeconds === undefined
      ? {}
      : {
          maxAge: Math.min(MAX_COOKIE_AGE_SECONDS, Math.max(0, Math.floor(options.maxAgeSeconds))),
        }),
  });
}

/** A `Set-Cookie` value that deletes `cookie`. */
export function clearCookie(cookie: CookieSpec, secure: boolean): string {
  return setCookie(cookie, '', { secure, maxAgeSeconds: 0 });
}

/**
 * The value of `cookie` in the request's `Cookie` header (hono's parser: the first of that name,
 * URI-decoded), if present and not empty.
 */
export function readCookie(request: Request, cookie: CookieSpec): string | undefined {
  const header = request.headers.get('cookie');
  if (header === null) return undefined;
  const value = parse(header, cookie.name)[cookie.name];
  return value === undefined || value === '' ? undefined : value;
}
