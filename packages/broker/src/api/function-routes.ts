import { browserRoutes } from '@platform/schema/routes';
import type { Context, Hono } from 'hono';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { isCustomDomainBrowserCall } from '../http/custom-domain.ts';
import type { Authenticate } from '../kernel/caller.ts';

/**
 * `functions.call` and `functions.stream` from the browser SDK (`browserRoutes`): the body is
 * the JSON input (an empty body is `{}`), the answer the host's `{ result }` or its bytes,
 * passed through without re-encoding.
 */
export function mountFunctionRoutes(
  app: Hono<BrokerEnv>,
  services: { invoker: FunctionInvoker; authenticate: Authenticate },
): void {
  const handler = async (c: Context<BrokerEnv>) => {
    const caller = await services.authenticate(c.req.raw);
    const input = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json, allowEmpty: true });
    const answer = await services.invoker.call(c.req.param('name') ?? '', {
      requestId: c.get('requestId'),
      input: input === undefined ? {} : input,
      caller,
      origin: 'browser',
      customDomain: isCustomDomainBrowserCall(c.req.raw),
      signal: c.req.raw.signal,
    });
    // The invoker's answer is the broker's own `Response` (mutable headers, a whole small body
    // or a stream): returned as is, so node-server writes a small body in one go.
    return answer;
  };
  app.post(browserRoutes.functionCall.path, handler);
  app.post(browserRoutes.functionStream.path, handler);
}
