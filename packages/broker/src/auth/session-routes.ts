import { PlatformError } from '@platform/errors';
import { browserRoutes } from '@platform/schema/routes';
import type { Context, Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { AUTH_BASE } from '../http/paths.ts';
import { readForm, seeOther } from '../pages/forms.ts';
import type { AuthService } from './auth-service.ts';
import { formPage, staleFormPage } from './form-pages.ts';
import { safeReturnTo, signInPath } from './forms.ts';
import { signOutPage } from './pages.ts';

const noStore = { 'cache-control': 'no-store' };

/**
 * The session broker `POST {app_url}/_platform/api/session` (`browserRoutes.session`) and
 * sign-out. The session route rotates the refresh token in the HttpOnly cookie and answers a
 * fresh access JWT, never a refresh token: `{ user, token, expiresAt }`; without a cookie
 * `{ user: null, token: null, expiresAt: null }`; for a revoked, expired or reused session 401
 * `AUTH_REQUIRED` and the cookie is deleted (spec 3.4).
 */
export function mountSessionRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  app.post(browserRoutes.session.path, (c) => session(auth, c));
  // A GET never signs out (link prefetchers); it asks.
  app.get(`${AUTH_BASE}/sign-out`, (c) => {
    const returnTo = safeReturnTo(c.req.query('returnTo'), c.req.raw);
    return formPage(auth, c.req.raw, (csrf) => signOutPage({ csrf, returnTo }));
  });
  // Ends only this browser's session (spec 3.4); other sessions of the account stay.
  app.post(`${AUTH_BASE}/sign-out`, async (c) => {
    const form = await readForm(c);
    if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
    const cleared = await auth.endSession(c.req.raw);
    return seeOther(
      signInPath(safeReturnTo(form.returnTo, c.req.raw)),
      cleared === undefined ? [] : [cleared],
    );
  });
}

async function session(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== new URL(c.req.url).origin) {
    throw new PlatformError({
      code: 'PERMISSION_DENIED',
      message: 'The session route answers pages of its own origin only.',
    });
  }
  const refreshed = await auth.refreshSession(c.req.raw);
  if (refreshed.state === 'none') {
    return c.json({ user: null, token: null, expiresAt: null }, 200, noStore);
  }
  if (refreshed.state === 'ended') {
    const error = {
      code: 'AUTH_REQUIRED',
      message: 'The session has ended. Sign in again.',
      retryable: false,
      requestId: c.get('requestId'),
    };
    const response = c.json({ error }, 401, noStore);
    if (refreshed.setCookie !== undefined)
      response.headers.append('set-cookie', refreshed.setCookie);
    return response;
  }
  const { user, token, expiresAt, setCookie } = refreshed;
  const response = c.json({ user, token, expiresAt: expiresAt.toISOString() }, 200, noStore);
  if (setCookie !== undefined) response.headers.append('set-cookie', setCookie);
  return response;
}
