import { PlatformError } from '@platform/errors';
import type { MiddlewareHandler } from 'hono';
import type { BrokerEnv } from './broker-env.ts';

/**
 * Refuses a request whose path or query carries an encoded NUL (`%00`) with `INVALID_REQUEST`
 * (400), before any route reads it: route parameters and query values (job ids, table names,
 * file refs) go to PostgreSQL, whose text cannot hold NUL. JSON and form bodies are checked where
 * they are read.
 */
export function refuseNulInUrl(): MiddlewareHandler<BrokerEnv> {
  return async (c, next) => {
    if (/%00/i.test(c.req.url)) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: 'The request path or query contains a NUL character (%00), which is not accepted.',
      });
    }
    await next();
  };
}
