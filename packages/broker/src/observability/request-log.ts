import { newId } from '../kernel/ids.ts';
import type { ServiceLogger } from './logger.ts';
import type { ServiceMetrics } from './metrics.ts';

/** Answers one request. */
// `env` is the Node server's (the WebSocket upgrade of realtime needs it to reach the app).
export type FetchHandler = (request: Request, env?: unknown) => Promise<Response>;

/** Where a request went: its host (without port) and the app it reached. */
export interface RequestTarget {
  readonly host: string;
  /** An app id, `base` for `{base_url}`, or `unknown`. */
  readonly app: string;
}

/**
 * Wraps `handler` so each request is logged as one JSON line (host, app, method, route, status,
 * duration, request id) and counted in the metrics. The route is the path alone: a query string
 * may carry a key or a link's secret, and headers are never logged. The request id is the one
 * the answer carries in `x-request-id` (the broker's apps set their own), or a new one.
 */
export function observeRequests(
  handler: FetchHandler,
  target: (request: Request) => RequestTarget,
  observers: { logger: ServiceLogger; metrics: ServiceMetrics },
): FetchHandler {
  return async (request, env) => {
    const started = performance.now();
    const { host, app } = target(request);
    let status = 500;
    let id: string | undefined;
    try {
      const response = await handler(request, env);
      status = response.status;
      id = response.headers.get('x-request-id') ?? undefined;
      if (id === undefined) {
        id = newId('request');
        try {
          response.headers.set('x-request-id', id);
        } catch {
          // A response with immutable headers (a fetched one) keeps them; the log has the id.
        }
      }
      return response;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      observers.metrics.request(app, request.method, status, seconds);
      observers.logger.info(
        {
          requestId: id ?? newId('request'),
          host,
          app,
          method: request.method,
          route: new URL(request.url).pathname,
          status,
          durationMs: Math.round(seconds * 1000 * 10) / 10,
        },
        'request',
      );
    }
  };
}
