import { randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { CUSTOM_DOMAIN_HEADER } from '../http/custom-domain.ts';
import { AUTH_BASE } from '../http/paths.ts';
import { sha256 } from '../kernel/crypto.ts';
import { markup, pageResponse } from '../pages/page-shell.ts';
import type { OrgPeer } from './auth-options.ts';
import type { AuthService } from './auth-service.ts';
import { authCookies, clearCookie, readCookie, setCookie } from './cookies.ts';
import { signInPath } from './forms.ts';

/** Where a signed-in app hands a sign-in on to another app of the organisation. */
export const RELAY_PATH = `${AUTH_BASE}/relay`;
/** Where an app takes a handed-on sign-in and starts its own session. */
export const HANDOFF_PATH = `${AUTH_BASE}/handoff`;

// A path of the receiving app, never another site (`//host`) or a scheme.
const localPath = (value: string | undefined): string | undefined =>
  value?.startsWith('/') && !value.startsWith('//') && !value.includes('\\') ? value : undefined;

const STATE = /^[0-9a-f]{64}$/;

/**
 * The start of a sign-in across the organisation's apps (docs/auth.md, "Several apps"): for a
 * page navigation to this private app without a session, when the organisation has other
 * apps or a central sign-in. Sets the nonce cookie and sends the browser to the organisation's central sign-in, if
 * it has one, else to the first other app's relay; that app,
 * where the browser may already be signed in, sends it back with a one-time code, or on to the
 * next app, and the last one to this app's sign-in page. `undefined` for an app alone.
 */
export function startRelay(auth: AuthService, request: Request): Response | undefined {
  const central = auth.centralSignInAt;
  const others = [
    ...(central === undefined ? [] : [central]),
    ...auth.peers().filter((peer) => peer.appId !== auth.appId),
  ];
  const first = others[0];
  if (first === undefined) return undefined;
  const url = new URL(request.url);
  const nonce = randomBytes(32).toString('base64url');
  const target = new URL(RELAY_PATH, first.url);
  target.search = new URLSearchParams({
    app: auth.appId,
    state: sha256(nonce),
    to: `${url.pathname}${url.search}`,
    // The nonce cookie lives on the custom domain the browser came by: the code must come back
    // there. The relay hands it there only if the domain is one of this app's verified ones.
    ...(request.headers.has(CUSTOM_DOMAIN_HEADER) ? { domain: url.hostname } : {}),
  }).toString();
  const headers = new Headers({ location: target.href });
  headers.append(
    'set-cookie',
    setCookie(authCookies.handoff, nonce, { secure: auth.secure(request), maxAgeSeconds: 120 }),
  );
  return new Response(null, { status: 302, headers });
}

/**
 * Mounts the relay (`GET /_platform/auth/relay?app&state&to[&domain]`: a signed-in browser gets
 * a code for the asking app, at its address or the verified custom domain it came by, any other
 * goes on to the next app or to the asking app's sign-in page) and
 * the handoff (`GET /_platform/auth/handoff?code&to`: the code, this app's and this browser's,
 * becomes a session of this app; anything else is the sign-in page).
 */
export function mountHandoffRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  app.get(RELAY_PATH, async (c) => {
    const peers = auth.peers();
    const found = peers.find((peer) => peer.appId === c.req.query('app'));
    const to = localPath(c.req.query('to'));
    const state = c.req.query('state') ?? '';
    // Only an app of this organisation, only to one of its own addresses and paths: never an
    // open redirect.
    const asking = found === undefined ? undefined : returnAddress(found, c.req.query('domain'));
    if (asking === undefined || asking.appId === auth.appId || to === undefined) {
      return c.text('Not a sign-in handoff of this organisation.', 400);
    }
    if (!STATE.test(state)) return toSignIn(c, asking, to);
    const identity = await auth.cookie(c.req.raw);
    // The code carries when the person signed in here, never "now": a handover is no sign-in.
    const session =
      identity?.sessionId === undefined ? undefined : await auth.activeSession(identity.sessionId);
    if (identity !== undefined && session !== undefined && identity.account.state !== 'paused') {
      const code = await auth.issueHandoff(
        identity.account.id,
        asking.appId,
        state,
        session.signedInAt,
      );
      const target = new URL(HANDOFF_PATH, asking.url);
      target.search = new URLSearchParams({ code, to }).toString();
      // A browser that just signed in here arrives by the redirect that answered the sign-in
      // form, and browsers hold such redirects to the form's own origin (CSP form-action): the
      // central sign-in goes on to the app by a page of its own instead.
      if (auth.centralSignIn) return continuePage(asking, target.href);
      return c.redirect(target.href, 302);
    }
    // The central sign-in is where a browser signed in nowhere signs in: it comes back to this
    // relay, which then hands the new sign-in to the asking app.
    if (auth.centralSignIn) return c.redirect(signInPath(c.req.url), 302);
    const order = peers.filter((peer) => peer.appId !== asking.appId);
    const next = order[order.findIndex((peer) => peer.appId === auth.appId) + 1];
    if (next === undefined) return toSignIn(c, asking, to);
    const target = new URL(RELAY_PATH, next.url);
    target.search = new URL(c.req.url).search;
    return c.redirect(target.href, 302);
  });

  app.get(HANDOFF_PATH, async (c) => {
    const to = localPath(c.req.query('to')) ?? '/';
    const nonce = readCookie(c.req.raw, authCookies.handoff);
    const code = c.req.query('code');
    const setCookieLine =
      nonce === undefined || code === undefined
        ? undefined
        : await auth.redeemHandoff(code, nonce, c.req.raw);
    const headers = new Headers();
    headers.append('set-cookie', clearCookie(authCookies.handoff, auth.secure(c.req.raw)));
    if (setCookieLine === undefined) {
      headers.set('location', signInPath(new URL(to, c.req.url).href));
    } else {
      headers.append('set-cookie', setCookieLine);
      headers.set('location', to);
    }
    return new Response(null, { status: 302, headers });
  });
}

/**
 * `peer` as the relay returns to it: at its own `{app_url}`, or, when the browser came by
 * `domain`, at that custom domain with the scheme and port of the app's address, if the domain
 * is one of the app's verified ones. `undefined` for any other domain.
 */
function returnAddress(peer: OrgPeer, domain: string | undefined): OrgPeer | undefined {
  if (domain === undefined) return peer;
  if (!peer.domains?.includes(domain)) return undefined;
  const url = new URL(peer.url);
  url.hostname = domain;
  return { ...peer, url: url.origin };
}

function toSignIn(c: Context<BrokerEnv>, asking: OrgPeer, to: string): Response {
  return c.redirect(new URL(signInPath(new URL(to, asking.url).href), asking.url).href, 302);
}

/** The page that sends a browser on to `href` of app `asking` at once (and links there). */
export function continuePage(asking: OrgPeer, href: string): Response {
  return pageResponse(
    {
      title: 'Signed in',
      forms: false,
      body: markup`<h1>Signed in</h1><p><a id="continue" href="${href}">Continue to ${asking.appId}</a></p>`.toString(),
    },
    { headers: { refresh: `0;url=${href}` } },
  );
}
