import type { MiddlewareHandler } from 'hono';
import { newId } from '../kernel/ids.ts';
import type { BrokerEnv } from './broker-env.ts';

/**
 * Gives every request an id (`c.get('requestId')`) and answers with it in `x-request-id`, so a
 * caller's error and the broker's log lines can be matched. Incoming ids are not trusted.
 */
export function requestId(): MiddlewareHandler<BrokerEnv> {
  return async (c, next) => {
    const id = newId('request');
    c.set('requestId', id);
    await next();
    c.res.headers.set('x-request-id', id);
  };
}
