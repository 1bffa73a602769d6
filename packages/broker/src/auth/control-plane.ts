import { PlatformError } from '@platform/errors';
import type { Context, Next } from 'hono';
import { readBearer } from '../http/bearer.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import {
  CONSOLE_CSRF_HEADER,
  dashboardPaths,
  isUnder,
  MCP_PATH,
  OWNER_API_PREFIX,
} from '../http/paths.ts';
import { safeEqual } from '../kernel/crypto.ts';
import { wantsHtml } from '../pages/forms.ts';
import { ACCOUNT_CREDENTIAL_PREFIX } from './account-credentials.ts';
import { AGENT_CREDENTIAL_PREFIX } from './agent-credentials.ts';
import { APP_TOKEN_PREFIX } from './app-tokens.ts';
import type { AccountAdmission } from './auth-options.ts';
import type { AuthService } from './auth-service.ts';
import { authCookies, readCookie, setCookie } from './cookies.ts';
import { signInPath } from './forms.ts';

const denied = (message: string) => new PlatformError({ code: 'PERMISSION_DENIED', message });

const NEEDS_DEV_TOKEN = 'The control plane needs the dev token of .platform/dev.json.';

/**
 * Admission to the control plane (docs/auth.md, "The control plane"), in front of the routes'
 * own checks. It admits:
 *
 * - `Authorization: Bearer <dev token>` (`.platform/dev.json`, what the CLI sends) or the
 *   broker key, any method;
 * - `Authorization: Bearer <agent credential>` on the agent tools and the routes they send only,
 *   acting for the credential's account (set as `agent` on the context);
 * - where the broker is told how (`accountAdmission`, `platform serve`): `Authorization: Bearer
 *   <account credential>` of `platform login`, of the app's owner or an organisation
 *   administrator, any method on the owner API (`/v1/apps/...`), admitted as that person's
 *   console (`console`, `consoleAccount`);
 * - for `GET`/`HEAD` without an `Authorization` header: the session cookie of the owner, once
 *   their address is confirmed (an unconfirmed owner does no owner-only action, spec 3.3), or the
 *   developer cookie that the dashboard link (`/_platform/dashboard?key=<link key>`, printed by
 *   `platform dev`; the key is derived from the dev token and opens nothing else) sets;
 * - a state change (`POST`, `PUT`, `DELETE`) with one of those cookies only from the console's
 *   own script: same origin and the browser's form token in `x-platform-csrf` (answered by
 *   `GET /_platform/dashboard/session`). A cross-site form can send neither the header nor the
 *   token, so it cannot act for the developer.
 *
 * A request admitted by cookie is marked `console`: the owner API routes that otherwise want
 * the dev token itself (grants, tokens, direct invocation) take it as the owner's console.
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
    const presented = readBearer(header) ?? '';
    if (presented.startsWith(AGENT_CREDENTIAL_PREFIX)) {
      c.set('agent', await admitAgent(auth, c, presented));
      return void (await next());
    }
    if (
      presented.startsWith(ACCOUNT_CREDENTIAL_PREFIX) &&
      auth.accountAdmission !== undefined &&
      isUnder(c.req.path, OWNER_API_PREFIX)
    ) {
      // The account's own credential stands for that person as their session does in the
      // console, acting as themselves; on the app's owner API only (not the agent tools, nor
      // the organisation's routes, which `{base_url}` answers itself).
      c.set('consoleAccount', await admitAccount(auth, auth.accountAdmission, presented));
      c.set('console', true);
      return void (await next());
    }
    await checkBearer(auth, presented);
    return void (await next());
  }
  const { method } = c.req;
  const change = method !== 'GET' && method !== 'HEAD';
  // A state change by cookie only from the console's own script: same origin and the
  // browser's form token in a header, which no cross-site form or page can send.
  const formToken = c.req.header(CONSOLE_CSRF_HEADER);
  if (change && !auth.checkConsoleToken(c.req.raw, formToken)) {
    throw denied(NEEDS_DEV_TOKEN);
  }
  const expected = await auth.developerCookieValue();
  const key = c.req.path === dashboardPaths.page ? c.req.query('key') : undefined;
  if (key !== undefined && !change) return tradeDevTokenLink(auth, c.req.raw, key, expected);
  const presented = readCookie(c.req.raw, authCookies.developer);
  const admit = async () => {
    c.set('console', true);
    await next();
  };
  if (expected !== undefined && presented !== undefined && safeEqual(presented, expected)) {
    return void (await admit());
  }
  const identity = await auth.cookie(c.req.raw);
  if (identity !== undefined && (await auth.signedInOwner(c.req.raw))) {
    c.set('consoleAccount', identity.account.id);
    return void (await admit());
  }
  if (identity === undefined && wantsHtml(c.req.raw)) {
    return c.redirect(signInPath(c.req.url), 302);
  }
  throw denied(
    identity === undefined
      ? 'The control plane needs the dev token of .platform/dev.json, or the owner signed in.'
      : (await auth.isOwner(identity.account.id))
        ? `The app's owner confirms their email address before using the control plane: open the confirmation email sent to ${identity.account.email}.`
        : `${identity.account.email} is not this app's owner; the control plane is the owner's.`,
  );
}

// An account credential of `platform login`: a member's live one (else `AUTH_REQUIRED`, so the
// CLI says to sign in again), and only of the app's owner or an organisation administrator.
async function admitAccount(
  auth: AuthService,
  admission: AccountAdmission,
  presented: string,
): Promise<string> {
  const accountId = await admission.memberOf(presented);
  if (accountId === undefined) {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message:
        "The account credential is revoked, expired or not a member's; sign in again with: platform login --to <base_url>",
    });
  }
  if (!(await admission.manages(accountId))) {
    throw denied(
      `Only the owner of ${auth.appId} and the organisation's administrators use its owner API.`,
    );
  }
  return accountId;
}

// With an `Authorization` header, only the dev token or the broker key passes.
async function checkBearer(auth: AuthService, presented: string): Promise<void> {
  if (presented.startsWith(APP_TOKEN_PREFIX)) {
    throw denied(
      'App access tokens reach the app runtime only, not the broker API (control plane).',
    );
  }
  if (!(await auth.isDeveloperKey(presented))) throw denied(NEEDS_DEV_TOKEN);
}

/**
 * What an agent credential reaches (docs/agents.md): the agent tools and the owner API routes
 * they send, plus the app's connections and bindings (an exact-app owner agent binds). Never
 * grants, tokens, secrets, members or connect links: entering credential values is a person's
 * action.
 */
const agentRoutes: ReadonlyArray<readonly [method: string, path: RegExp]> = [
  ['*', new RegExp(`^${MCP_PATH}$`)],
  ['GET', /^\/v1\/apps\/([^/]+)\/jobs(\/[^/]+)?$/],
  ['GET', /^\/v1\/apps\/([^/]+)\/(integration-events|custom-integrations|connections|bindings)$/],
  ['GET', /^\/v1\/apps\/([^/]+)\/dev\/integrations$/],
  ['PUT', /^\/v1\/apps\/([^/]+)\/dev\/integrations$/],
  ['POST', /^\/v1\/apps\/([^/]+)\/dev\/integration-events$/],
  ['PUT', /^\/v1\/apps\/([^/]+)\/bindings\/[^/]+$/],
  ['POST', /^\/v1\/apps\/([^/]+)\/invoke\/[^/]+$/],
  // Listing and taking backups, for the app's owner only (the backups' routes check `owns`);
  // restoring and removing replace or lose data, a person's action.
  ['GET', /^\/v1\/apps\/([^/]+)\/backups$/],
  ['POST', /^\/v1\/apps\/([^/]+)\/backups$/],
];

// An agent credential: live, made for this app, its account still able to Edit it, and only
// on the agent's routes of this app.
async function admitAgent(auth: AuthService, c: Context<BrokerEnv>, presented: string) {
  const agent = await auth.agentFor(presented);
  if (agent === undefined) {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message: `The agent credential is revoked, not valid for ${auth.appId}, or its account may no longer change the app.`,
    });
  }
  const { method, path } = c.req;
  const route = agentRoutes.find(([m, p]) => (m === '*' || m === method) && p.test(path));
  const appId = route?.[1].exec(path)?.[1];
  if (route === undefined || (appId !== undefined && appId !== auth.appId)) {
    throw denied(
      path.includes('/connections/links')
        ? 'Entering credential values is a person’s action: an agent cannot make connect links.'
        : `An agent credential reaches the agent tools of ${auth.appId} and the routes they use, not ${method} ${path}.`,
    );
  }
  return agent;
}

// The dashboard link: trade its key for the developer cookie, then drop it from the URL.
async function tradeDevTokenLink(
  auth: AuthService,
  request: Request,
  key: string,
  cookieValue: string | undefined,
): Promise<Response> {
  if (cookieValue === undefined || !(await auth.isDashboardLinkKey(key))) {
    throw denied('This dashboard link is not valid (platform dev prints a new one each start).');
  }
  const cookie = setCookie(authCookies.developer, cookieValue, { secure: auth.secure(request) });
  return new Response(null, {
    status: 303,
    headers: {
      location: dashboardPaths.page,
      'set-cookie': cookie,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    },
  });
}
