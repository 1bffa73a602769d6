import { PlatformError } from '@platform/errors';
import { browserRoutes } from '@platform/schema/routes';
import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { AUTH_BASE } from '../http/paths.ts';
import type { AuthService } from './auth-service.ts';
import { authCookies, clearCookie, readCookie } from './cookies.ts';
import { checkForm, staleFormPage } from './email-link-routes.ts';
import { readForm, safeReturnTo, seeOther, signInPath } from './forms.ts';
import { pageResponse } from './page-layout.ts';
import { signOutPage } from './pages.ts';
import { Sessions } from './sessions.ts';

/**
 * The session broker `POST {app_url}/_platform/api/session` (`browserRoutes.session`) and
 * sign-out. The session route rotates the refresh token in the HttpOnly cookie and answers a
 * fresh access JWT, never a refresh token: `{ user, token, expiresAt }`; without a cookie
 * `{ user: null, token: null, expiresAt: null }`; for a revoked, expired or reused session 401
 * `AUTH_REQUIRED` and the cookie is deleted (spec 3.4).
 */
export function mountSessionRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  app.post(browserRoutes.session.path, async (c) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== new URL(c.req.url).origin) {
      throw new PlatformError({
        code: 'PERMISSION_DENIED',
        message: 'The session route answers pages of its own origin only.',
      });
    }
    const noStore = { 'cache-control': 'no-store' };
    const value = readCookie(c.req.raw, authCookies.session);
    if (value === undefined)
      return c.json({ user: null, token: null, expiresAt: null }, 200, noStore);
    const check = await auth.sessions.check(value, { rotate: true });
    const account = check.ok ? await auth.accounts.byId(check.session.accountId) : undefined;
    if (!check.ok || account === undefined || account.state === 'paused') {
      if (check.ok) await auth.sessions.revoke(check.session.id, 'account paused');
      const response = c.json(
        {
          error: {
            code: 'AUTH_REQUIRED',
            message: 'The session has ended. Sign in again.',
            retryable: false,
            requestId: c.get('requestId'),
          },
        },
        401,
        noStore,
      );
      response.headers.append(
        'set-cookie',
        clearCookie(authCookies.session, auth.secure(c.req.raw)),
      );
      return response;
    }
    const { token, expiresAt } = await auth.jwt.sign(
      { accountId: account.id, sessionId: check.session.id },
      check.session.expiresAt,
      account.email,
    );
    const user = {
      id: account.id,
      email: account.email,
      ...(account.displayName ? { displayName: account.displayName } : {}),
    };
    const response = c.json({ user, token, expiresAt: expiresAt.toISOString() }, 200, noStore);
    if (check.cookie !== undefined) {
      response.headers.append(
        'set-cookie',
        auth.sessionCookie(check.cookie, check.session.expiresAt, c.req.raw),
      );
    }
    return response;
  });

  // A GET never signs out (link prefetchers); it asks.
  app.get(`${AUTH_BASE}/sign-out`, (c) => {
    const csrf = auth.formToken(c.req.raw);
    const returnTo = safeReturnTo(c.req.query('returnTo'), c.req.raw);
    return pageResponse(signOutPage({ csrf: csrf.token, returnTo }), {
      setCookies: csrf.setCookie ? [csrf.setCookie] : [],
    });
  });

  // Ends only this browser's session (spec 3.4); other sessions of the account stay.
  app.post(`${AUTH_BASE}/sign-out`, async (c) => {
    const form = await readForm(c);
    if (!checkForm(auth, c, form)) return staleFormPage();
    const value = readCookie(c.req.raw, authCookies.session);
    const id = value === undefined ? undefined : Sessions.idOf(value);
    if (value !== undefined && id !== undefined) {
      const check = await auth.sessions.check(value, { rotate: false });
      if (check.ok) await auth.sessions.revoke(id, 'signed out');
    }
    return seeOther(signInPath(safeReturnTo(form.returnTo, c.req.raw)), [
      clearCookie(authCookies.session, auth.secure(c.req.raw)),
    ]);
  });
}
