import { browserRoutes } from '@platform/schema/routes';
import type { Context } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { AUTH_BASE } from '../http/paths.ts';

// Pages under `{auth_url}` that a signed-in person comes back to after signing in.
const signedInPages = [
  `${AUTH_BASE}/preferences`,
  `${AUTH_BASE}/account`,
  `${AUTH_BASE}/access-tokens/`,
  `${AUTH_BASE}/onboarding/`,
  // The approval of a terminal's sign-in (platform login) and the central sign-in's relay.
  `${AUTH_BASE}/account-logins/`,
  `${AUTH_BASE}/relay`,
];

/**
 * Where to go after sign-in: a path on this origin, never another site (no open redirect) and
 * never back into the sign-in pages (but to the pages for the signed-in: preferences, the
 * account page, the owner's access-token pages, the onboarding launch page). Anything else becomes `/`. The path never starts with `//`
 * or `/\` (a browser reads those as another host): a run of leading slashes and backslashes is
 * reduced to one `/`, so `/.//evil.example` becomes `/evil.example`.
 */
export function safeReturnTo(value: string | undefined, request: Request): string {
  if (value === undefined || value === '') return '/';
  const own = new URL(request.url);
  try {
    const url = new URL(value, own);
    // `/.//x`, `/%2e//x` and `/a/..//x` normalise to the pathname `//x`, a network-path
    // reference once it is a Location.
    const pathname = url.pathname.replace(/^[/\\]+/, '/');
    const intoSignIn =
      pathname.startsWith(AUTH_BASE) && !signedInPages.some((page) => pathname.startsWith(page));
    if (url.origin !== own.origin || intoSignIn) return '/';
    return `${pathname}${url.search}${url.hash}`;
  } catch {
    return '/';
  }
}

/** The sign-in page's address, coming back to `returnTo`. */
export function signInPath(returnTo: string): string {
  return `${browserRoutes.signIn.path}?returnTo=${encodeURIComponent(returnTo)}`;
}

/**
 * The client's address (for rate limits): the socket's peer, or the address a trusted proxy
 * named (`platform serve`); `local` for in-process requests.
 */
export function clientAddress(c: Context<BrokerEnv>): string {
  return clientAddressOf(c.env) ?? 'local';
}
