import { errorResponse, PlatformError, toPlatformError } from '@platform/errors';
import type { Context } from 'hono';
import type { BrokerEnv } from './broker-env.ts';

/** Receives failures that are not the caller's fault, for the terminal. */
export type InternalErrorReporter = (error: unknown, requestId: string) => void;

/**
 * The broker's `onError`: a `PlatformError` becomes its envelope and status; anything else is
 * reported and answered as a plain `INTERNAL` 500 whose message reveals nothing (as hono does
 * with unknown errors). A failure after the client hung up (its request signal aborted, for
 * example a body cut off mid-upload) is the client's doing, not the broker's: it is answered
 * `ABORTED` (to nobody) and never reported.
 */
export function handleError(report: InternalErrorReporter) {
  return (error: unknown, c: Context<BrokerEnv>): Response => {
    const requestId = c.get('requestId');
    if (c.req.raw.signal.aborted) {
      const response = errorResponse(
        new PlatformError({ code: 'ABORTED', message: 'The client closed the connection.' }),
        requestId,
      );
      response.headers.set('x-request-id', requestId);
      return response;
    }
    if (error instanceof PlatformError) {
      if (error.code === 'INTERNAL') report(error.cause ?? error, requestId);
      const response = errorResponse(error, requestId);
      response.headers.set('x-request-id', requestId);
      return response;
    }
    report(error, requestId);
    const response = errorResponse(toPlatformError(error), requestId);
    response.headers.set('x-request-id', requestId);
    return response;
  };
}

/** The broker's `notFound`: `ROUTE_NOT_FOUND` in the envelope. */
export function handleNotFound(c: Context<BrokerEnv>): Response {
  const requestId = c.get('requestId');
  const response = errorResponse(
    new PlatformError({
      code: 'ROUTE_NOT_FOUND',
      message: `No route for ${c.req.method} ${c.req.path}.`,
    }),
    requestId,
  );
  response.headers.set('x-request-id', requestId);
  return response;
}
