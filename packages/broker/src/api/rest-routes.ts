import { PlatformError } from '@platform/errors';
import { REST_API_PREFIX } from '@platform/schema/routes';
import type { Hono } from 'hono';
import type { DataService } from '../data/data-service.ts';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { Authenticate } from '../kernel/caller.ts';

/**
 * `POST {app_url}/rest/v1/rpc/<function>` (spec 2.2) calls a database function of the public
 * schema with the JSON body as named arguments, under RLS as the same caller as REST reads
 * (`DataService.rpc`); the answer is its result as JSON.
 *
 * `GET {app_url}/rest/v1/<table>?select=a,b&limit=n` (spec 4.1): the rows the caller may see
 * under RLS, as a JSON array (the spec does not show the body; this is PostgREST's shape).
 * `select` is a comma-separated column list or `*`; `limit` defaults to 100, at most 1000.
 */
export function mountRestRoutes(
  app: Hono<BrokerEnv>,
  services: { data: DataService; authenticate: Authenticate },
): void {
  app.post(`${REST_API_PREFIX}/rpc/:fn`, async (c) => {
    const caller = await services.authenticate(c.req.raw);
    const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json, allowEmpty: true });
    return c.json(await services.data.rpc(caller, c.req.param('fn'), body));
  });
  app.get(`${REST_API_PREFIX}/:table`, async (c) => {
    const caller = await services.authenticate(c.req.raw);
    const select = c.req.query('select');
    const limit = c.req.query('limit');
    const columns =
      select === undefined || select.trim() === '*'
        ? undefined
        : select
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s.length > 0);
    if (limit !== undefined && !/^\d+$/.test(limit)) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: '`limit` must be a positive integer.',
      });
    }
    const rows = await services.data.list(caller, c.req.param('table'), {
      select: columns,
      limit: limit === undefined ? undefined : Number(limit),
    });
    return c.json(rows);
  });
}
