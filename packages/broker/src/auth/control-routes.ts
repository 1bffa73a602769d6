import { PlatformError } from '@platform/errors';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import { readBearer } from '../http/bearer.ts';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { dashboardPaths, ownerApiPaths } from '../http/paths.ts';
import { parseEmail } from '../kernel/email.ts';
import type { AuthService } from './auth-service.ts';

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

const noEmail = () =>
  new PlatformError({ code: 'INVALID_INPUT', message: 'Give an email address.' });

/**
 * The owner API for grants, used by `platform access`: `GET|POST {access}`,
 * `DELETE {access}/:email`; and the guard of the app access tokens' owner API
 * (`app-token-routes.ts`, `platform app access-token`). Every request needs `Authorization: Bearer <dev token>`: the token
 * `platform dev` writes to `.platform/dev.json` (mode 0600), or {@link AuthService.brokerKey}
 * for a broker started without it. Neither a web page nor an app access token can reach it.
 */
export function mountControlRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  const keyed = guard(auth);
  const { access, tokens, agents } = ownerApiPaths;
  scopeToApp(app, auth.appId, [access, tokens, agents]);
  for (const path of [access, tokens, agents]) {
    app.use(path, keyed);
    app.use(`${path}/*`, keyed);
  }
  app.get(access, async (c) => c.json({ grants: await auth.listGrants() }));
  // The console's form token (its cookie set when the browser has none yet); only the owner's
  // console reaches it (control-plane admission), and only this origin's script can read it.
  app.get(dashboardPaths.session, (c) => {
    const { token, setCookie } = auth.consoleToken(c.req.raw);
    const headers: Record<string, string> = { 'cache-control': 'no-store' };
    if (setCookie) headers['set-cookie'] = setCookie;
    return c.json({ csrf: token }, 200, headers);
  });
  app.post(access, (c) => grant(auth, c));
  app.delete(`${access}/:email`, (c) => revoke(auth, c));
}

async function grant(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json });
  const email = parseEmail(field(body, 'email'));
  if (email === undefined) throw noEmail();
  return c.json({ email, granted: await auth.grantAccess(email) });
}

async function revoke(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const email = parseEmail(c.req.param('email'));
  if (email === undefined) throw noEmail();
  return c.json({ email, revoked: await auth.revokeAccess(email) });
}

function guard(auth: AuthService): MiddlewareHandler<BrokerEnv> {
  return async (c, next) => {
    const presented = readBearer(c.req.header('authorization'));
    // The console: admission checked the owner's session (or the developer cookie) and, for a
    // change, the form token.
    const viaConsole = c.get('console') === true;
    if (!viaConsole && (typeof presented !== 'string' || !(await auth.isDeveloperKey(presented)))) {
      throw new PlatformError({
        code: 'PERMISSION_DENIED',
        message:
          'The owner API needs the dev token of .platform/dev.json (use platform access or platform app access-token).',
      });
    }
    await next();
  };
}
