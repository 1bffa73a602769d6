import { PlatformError } from '@platform/errors';
import type { Context, Next } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { APP_TOKEN_PREFIX } from './app-tokens.ts';
import type { AuthService } from './auth-service.ts';
import { authCookies, readCookie, setCookie } from './cookies.ts';
import { signInPath, wantsHtml } from './forms.ts';
import { safeEqual } from './secrets.ts';

/** The broker's own API for the developer's tools (control plane). */
export const BROKER_API_PREFIX = '/_platform/broker';

/** Where the dashboard lives (`src/http/dashboard`); its dev-token link is `?key=<dev token>`. */
export const DASHBOARD_PATH = '/_platform/dashboard';

/** The control plane: the broker API, the jobs and cron API of spec 4.1, the dashboard. */
export const controlPlanePrefixes = [BROKER_API_PREFIX, '/v1/apps', DASHBOARD_PATH] as const;

const under = (path: string, prefix: string): boolean =>
  path === prefix || path.startsWith(`${prefix}/`);

/** Whether `path` belongs to the control plane. */
export const isControlPlane = (path: string): boolean =>
  controlPlanePrefixes.some((prefix) => under(path, prefix));

const denied = (message: string) => new PlatformError({ code: 'PERMISSION_DENIED', message });

/**
 * Admission to the control plane (docs/auth.md, "The control plane"), in front of the routes'
 * own checks. It admits:
 *
 * - `Authorization: Bearer <dev token>` (`.platform/dev.json`, what the CLI sends) or the
 *   broker key, any method;
 * - for `GET`/`HEAD` without an `Authorization` header: the owner's session cookie, or the
 *   developer cookie that the dashboard's dev-token link (`/_platform/dashboard?key=<dev
 *   token>`, printed by `platform dev`) sets. A cookie never authorises a state change, so a
 *   cross-site form cannot act for the developer.
 *
 * App access tokens, access JWTs (any script of the app can hold one) and every other account
 * are refused with 403; a browser without a session is sent to sign-in.
 */
export async function admitControlPlane(
  auth: AuthService,
  c: Context<BrokerEnv>,
  next: Next,
): Promise<Response | undefined> {
  const header = c.req.header('authorization');
  if (header !== undefined) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
    if (presented.startsWith(APP_TOKEN_PREFIX)) {
      throw denied(
        'App access tokens reach the app runtime only, not the broker API (control plane).',
      );
    }
    if (await auth.isDeveloperKey(presented)) return void (await next());
    throw denied('The control plane needs the dev token of .platform/dev.json.');
  }
  const { method } = c.req;
  if (method !== 'GET' && method !== 'HEAD') {
    throw denied('The control plane needs the dev token of .platform/dev.json.');
  }
  const expected = await auth.developerCookieValue();
  const key = c.req.path === DASHBOARD_PATH ? c.req.query('key') : undefined;
  if (key !== undefined) {
    // The dev-token link: trade the token for the developer cookie, then drop it from the URL.
    if (expected === undefined || !(await auth.isDeveloperKey(key))) {
      throw denied('This dashboard link is not valid (platform dev prints a new one each start).');
    }
    const cookie = setCookie(authCookies.developer, expected, { secure: auth.secure(c.req.raw) });
    return new Response(null, {
      status: 303,
      headers: {
        location: DASHBOARD_PATH,
        'set-cookie': cookie,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      },
    });
  }
  const presented = readCookie(c.req.raw, authCookies.developer);
  if (expected !== undefined && presented !== undefined && safeEqual(presented, expected)) {
    return void (await next());
  }
  const identity = await auth.cookie(c.req.raw);
  if (identity?.account.email === auth.options.ownerEmail) return void (await next());
  if (identity === undefined && wantsHtml(c.req.raw)) {
    return c.redirect(signInPath(c.req.url), 302);
  }
  throw denied(
    identity === undefined
      ? 'The control plane needs the dev token of .platform/dev.json, or the owner signed in.'
      : `${identity.account.email} is not this app's owner; the control plane is the owner's.`,
  );
}
