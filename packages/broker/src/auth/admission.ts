import { PlatformError } from '@platform/errors';
import { browserRoutes, RUNTIME_PREFIX } from '@platform/schema/routes';
import type { MiddlewareHandler } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { AUTH_BASE, CUSTOM_INTEGRATIONS_PREFIX, isControlPlane, isUnder } from '../http/paths.ts';
import { wantsHtml } from '../pages/forms.ts';
import { pageResponse } from '../pages/page-shell.ts';
import type { AuthService } from './auth-service.ts';
import { admitControlPlane } from './control-plane.ts';
import { formPage } from './form-pages.ts';
import { signInPath } from './forms.ts';
import { startRelay } from './handoff-routes.ts';
import { type Identity, INVALID } from './identity.ts';
import { accessDeniedPage, confirmEmailPage, messagePage, verificationPage } from './pages.ts';

/**
 * The edge check (spec 1.2, 5.3), before any frontend page or runtime API is served:
 *
 * - sign-in pages, the Function runtime routes (invocation tokens), the connect page and the
 *   webhook URLs (the secret in their addresses) pass;
 * - the control plane (broker API, jobs API, dashboard) admits the developer only
 *   ({@link admitControlPlane}): never an app access token (spec 2.2) or another account;
 * - while the owner's account is paused for verification, app traffic gets the
 *   verification-required page (503) or `ACCOUNT_VERIFICATION_REQUIRED`; once it was deleted
 *   with the app, the deleted page (410) or `APP_DELETED`;
 * - a private app redirects a browser without a session to sign-in and back (302), answers
 *   `AUTH_REQUIRED` (401) to other requests, and HTTP 403 (`ACCESS_DENIED`) to an account
 *   without a grant. The session route stays reachable without a session so the SDK learns it
 *   is signed out.
 */
export function admission(auth: AuthService): MiddlewareHandler<BrokerEnv> {
  return async (c, next) => {
    const path = c.req.path;
    if (isUnder(path, AUTH_BASE) || isUnder(path, RUNTIME_PREFIX)) return next();
    if (isUnder(path, CUSTOM_INTEGRATIONS_PREFIX)) return next();
    if (isControlPlane(path)) return admitControlPlane(auth, c, next);
    const html = wantsHtml(c.req.raw);
    const state = await auth.appState();
    if (state === 'deleted') return deletedApp(html);
    if (state === 'paused') return pausedApp(auth, c.req.raw, html);
    if (auth.visibility === 'public') return next();
    const bearer = await auth.bearer(c.req.raw);
    if (bearer === INVALID) {
      throw new PlatformError({
        code: 'AUTH_REQUIRED',
        message: 'The credential is expired, revoked or not valid for this app.',
      });
    }
    const identity = bearer ?? (await auth.cookie(c.req.raw));
    if (identity === undefined) {
      if (path === browserRoutes.session.path) return next();
      if (html) return startRelay(auth, c.req.raw) ?? c.redirect(signInPath(c.req.url), 302);
      throw new PlatformError({
        code: 'AUTH_REQUIRED',
        message: 'This app is private. Sign in first.',
      });
    }
    const admitted = await auth.admissionOf(identity.account);
    if (admitted === 'unconfirmed') return unconfirmed(auth, c.req.raw, identity, html);
    if (admitted === 'no-grant') return noAccess(auth, c.req.raw, identity, html);
    return next();
  };
}

// HTTP 410 for everything of an app deleted with its owner's account (spec 3.5).
function deletedApp(html: boolean): Response {
  if (!html) throw appDeletedError();
  return deletedAppPage();
}

/** `APP_DELETED` (410): what an API call to an app deleted with its owner's account answers. */
export function appDeletedError(): PlatformError {
  return new PlatformError({
    code: 'APP_DELETED',
    message: "This app was deleted with its owner's account.",
  });
}

/** The page (410) a browser gets at the address of an app deleted with its owner's account. */
export function deletedAppPage(): Response {
  const page = messagePage(
    'This app was deleted',
    "Its owner deleted their account, and the app's data, files and Functions with it.",
  );
  return pageResponse(page, { status: 410 });
}

// The verification-required page (503) for a page navigation, the error for anything else.
function pausedApp(auth: AuthService, request: Request, html: boolean): Response {
  if (!html) {
    throw new PlatformError({
      code: 'ACCOUNT_VERIFICATION_REQUIRED',
      message: 'This app is paused until its owner confirms their email address.',
    });
  }
  const page = (csrf: string) => verificationPage({ app: auth.appId, csrf });
  return formPage(auth, request, page, { status: 503 });
}

// HTTP 403 for an account with access that has not confirmed its email address: the page says
// so and offers a new link; a grant is not what it lacks.
function unconfirmed(
  auth: AuthService,
  request: Request,
  identity: Identity,
  html: boolean,
): Response {
  const { email } = identity.account;
  if (!html) {
    throw new PlatformError({
      code: 'ACCESS_DENIED',
      message: `${email} may open this private app once it confirms its email address; open the confirmation link sent to it, or ask for a new one on the app's page.`,
      details: { reason: 'EMAIL_UNCONFIRMED' },
    });
  }
  const page = (csrf: string) => confirmEmailPage({ app: auth.appId, email, csrf });
  return formPage(auth, request, page, { status: 403 });
}

// HTTP 403 for a signed-in account without a grant: a page (with sign-out) or the error.
function noAccess(
  auth: AuthService,
  request: Request,
  identity: Identity,
  html: boolean,
): Response {
  const { email } = identity.account;
  if (!html) {
    throw new PlatformError({
      code: 'ACCESS_DENIED',
      message: `${email} has no access to this private app.`,
    });
  }
  const page = (csrf: string) => accessDeniedPage({ app: auth.appId, email, csrf });
  return formPage(auth, request, page, { status: 403 });
}
