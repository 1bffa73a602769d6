import { PlatformError } from '@platform/errors';
import type { Hono, MiddlewareHandler } from 'hono';
import type { BrokerEnv } from './broker-env.ts';

/**
 * Keeps owner API routes of the form `/v1/apps/:appId/...` to the app this broker serves: a
 * request naming another app id is `APP_NOT_FOUND` before the route runs. Each path is guarded
 * itself and below it (`path` and `path/*`).
 *
 * @example
 * ```ts
 * scopeToApp(app, 'notes', [ownerApiPaths.outbox]);
 * app.get(ownerApiPaths.outbox, ...); // `/v1/apps/other/outbox` never reaches it
 * ```
 */
export function scopeToApp(app: Hono<BrokerEnv>, appId: string, paths: readonly string[]): void {
  const check = thisAppOnly(appId);
  for (const path of paths) {
    app.use(path, check);
    app.use(`${path}/*`, check);
  }
}

function thisAppOnly(appId: string): MiddlewareHandler<BrokerEnv> {
  return async (c, next) => {
    const asked = c.req.param('appId');
    if (asked !== appId) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: `This broker serves the app "${appId}", not "${asked}".`,
        details: { appId: asked ?? '' },
      });
    }
    await next();
  };
}
