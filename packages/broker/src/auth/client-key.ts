import type { Context } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { sha256 } from '../kernel/crypto.ts';
import { authCookies, readCookie } from './cookies.ts';
import { clientAddress } from './forms.ts';

// 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6; `local` is an in-process request.
const LOOPBACK = /^(?:127\.|::1$|::ffff:127\.|local$)/;

/**
 * The key of a password attempt's per-client limit. A remote client is its address. On this
 * machine every client is 127.0.0.1, so the address would make one browser's failures lock
 * every account out for everyone; a local client is its browser instead: the form's CSRF
 * cookie, which every password post must carry. A local process that sheds cookies escapes
 * this count, never the per-address one.
 *
 * @example
 * ```ts
 * const attempt = { email, password, returnTo, client: attemptClient(c) };
 * ```
 */
export function attemptClient(c: Context<BrokerEnv>): string {
  const address = clientAddress(c);
  const browser = readCookie(c.req.raw, authCookies.csrf);
  if (!LOOPBACK.test(address) || browser === undefined) return `address:${address}`;
  return `browser:${sha256(browser)}`;
}
