import { PlatformError } from '@platform/errors';
import type { Context, Hono, Next } from 'hono';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { isCustomDomainBrowserCall } from '../http/custom-domain.ts';
import type { Authenticate } from '../kernel/caller.ts';
import type { RouteTable } from './route-table.ts';

/** What the Function routes need. */
export interface AppRouteServices {
  /** The current route table (replaced when platform.yaml changes). */
  readonly routes: () => RouteTable;
  readonly invoker: FunctionInvoker;
  readonly authenticate: Authenticate;
}

const bodiless = new Set(['GET', 'HEAD']);

/**
 * `?a=1&a=2&b=3` as `{ a: ['1', '2'], b: '3' }`: repeated keys become arrays. A `__proto__` key
 * is refused with `INVALID_REQUEST`, as in a JSON body: assigned to a record it would set the
 * prototype instead, so the Function would silently never see it.
 */
export function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    if (key === '__proto__') {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: 'The query parameter `__proto__` is not accepted; rename it.',
        details: { path: 'query.__proto__' },
      });
    }
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/**
 * Schema-3 Function routes (spec 4.1): `{app_url}<route path>` invokes the route's Function with
 * `http` filled in (`method`, `pathname`, `params`, `query`). GET and HEAD take the input `{}`;
 * HEAD runs the handler and sends no body. Other declared methods take the JSON body as input
 * (ours: an empty body is `{}`). `access` applies as for browser calls, with the route origin
 * (`system` is never reachable). The answer is the host's, unchanged (`{ result }` or bytes).
 * A path that fits a route but not the method answers 405 with `allow`.
 */
export function mountAppRoutes(app: Hono<BrokerEnv>, services: AppRouteServices): void {
  app.all('*', async (c: Context<BrokerEnv>, next: Next) => {
    const url = new URL(c.req.url);
    const method = c.req.method.toUpperCase();
    const match = services.routes().match(method, url.pathname);
    if (match === undefined) return next();
    if ('allowed' in match) {
      // A GET that fits a route path but not its method may still be a frontend file.
      if (bodiless.has(method)) return next();
      throw new PlatformError({
        code: 'METHOD_NOT_ALLOWED',
        message: `${url.pathname} answers ${match.allowed.join(', ')}, not ${method}.`,
        details: { allowed: match.allowed },
      });
    }
    const caller = await services.authenticate(c.req.raw);
    const input = bodiless.has(method)
      ? {}
      : ((await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json, allowEmpty: true })) ?? {});
    const answer = await services.invoker.call(match.route.function, {
      requestId: c.get('requestId'),
      input,
      caller,
      origin: 'route',
      customDomain: isCustomDomainBrowserCall(c.req.raw),
      http: { method, pathname: url.pathname, params: match.params, query: queryOf(url) },
      signal: c.req.raw.signal,
    });
    if (method === 'HEAD') {
      await answer.body?.cancel().catch(() => undefined);
      return new Response(null, { status: answer.status, headers: answer.headers });
    }
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
}
