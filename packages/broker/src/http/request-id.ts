import type { MiddlewareHandler } from 'hono';
import { randomBase64url } from '../identity/random-strings.ts';
import type { BrokerEnv } from './broker-env.ts';

/** A new request id: `req_` and 20 random base32-ish characters. */
export function newRequestId(): string {
  return `req_${randomBase64url(12)}`;
}

/**
 * Gives every request an id (`c.get('requestId')`) and answers with it in `x-request-id`, so a
 * caller's error and the broker's log lines can be matched. Incoming ids are not trusted.
 */
export function requestId(): MiddlewareHandler<BrokerEnv> {
  return async (c, next) => {
    const id = newRequestId();
    c.set('requestId', id);
    await next();
    c.res.headers.set('x-request-id', id);
  };
}
