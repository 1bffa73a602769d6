import { PlatformError } from '@platform/errors';
import { RUNTIME_PREFIX } from '@platform/schema/routes';
import type { Hono, MiddlewareHandler } from 'hono';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { scopeToApp } from '../http/app-scope.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { consoleApiPaths, isControlPlane, isUnder, ownerApiPaths } from '../http/paths.ts';
import {
  type KeptLine,
  type LineFilter,
  type LogLevel,
  type LogSink,
  lineMatches,
  requestLevel,
} from '../logs/log-sink.ts';
import type { FunctionCalls } from './function-calls.ts';

const levels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
/** How many lines one list answer carries at most. */
export const LOG_PAGE_LIMIT = 500;
/** How often an open live tail sends a comment, so proxies keep it open. */
const HEARTBEAT_MS = 15_000;

const invokePath = new RegExp(
  `^${ownerApiPaths.invoke.replace(':appId', '[^/]+').replace(':name', '[^/]+')}$`,
);

/**
 * Whether a request gets a line in the console's Logs: the app's traffic and direct
 * invocations. Functions' own calls back to the broker (the runtime contract) and the owner
 * API's reads (the console polling itself) would bury it.
 */
export function logsRequest(path: string): boolean {
  if (isUnder(path, RUNTIME_PREFIX)) return false;
  return !isControlPlane(path) || invokePath.test(path);
}

/**
 * Records each request's line (method, path without query, status, duration, request id and the
 * Function it called) in the log sink, after the answer's head is made. Mount it before every
 * route whose requests it should see.
 */
export function recordRequests(logs: LogSink, calls: FunctionCalls): MiddlewareHandler<BrokerEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const path = new URL(c.req.url).pathname;
      if (logsRequest(path)) {
        const requestId = c.get('requestId');
        logs.request({
          at: new Date().toISOString(),
          method: c.req.method,
          path,
          status: c.res.status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          requestId,
          functionName: calls.byRequest(requestId)?.name,
        });
      }
    }
  };
}

const badFilter = (field: string, message: string) =>
  new PlatformError({ code: 'INVALID_INPUT', message, details: { field } });

/** The filter of a logs query: `function`, `level`, `q`, `requestId`, `from`, `to`, `limit`. */
export function readLineFilter(query: (name: string) => string | undefined): LineFilter {
  const level = query('level') || undefined;
  if (level !== undefined && !levels.includes(level as LogLevel)) {
    throw badFilter('level', `level is one of ${levels.join(', ')}.`);
  }
  const instant = (name: string) => {
    const value = query(name) || undefined;
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw badFilter(name, `${name} is an ISO 8601 instant.`);
    return new Date(ms).toISOString();
  };
  const limitText = query('limit') || undefined;
  const limit = limitText === undefined ? LOG_PAGE_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > LOG_PAGE_LIMIT) {
    throw badFilter('limit', `limit is a whole number from 1 to ${LOG_PAGE_LIMIT}.`);
  }
  return {
    functionName: query('function') || undefined,
    level: level as LogLevel | undefined,
    text: query('q') || undefined,
    requestId: query('requestId') || undefined,
    from: instant('from'),
    to: instant('to'),
    limit,
  };
}

/**
 * The console's owner API (control-plane admission keeps it to the owner and developer):
 *
 * - `GET {logs}?function=&level=&q=&requestId=&from=&to=&limit=`: `{ lines, capacity }`, the
 *   kept log entries and request lines, oldest first, redacted as printed;
 * - `GET {logStream}` (same filters but `limit`): server-sent events, one `line` event per new
 *   line while the connection is open;
 * - `GET {functions}`: `{ functions: [{ name, access, recent }] }`, the newest calls of each;
 * - `GET {overview}`: the last hour's calls per minute, percentiles and request counts.
 */
export function mountConsoleRoutes(
  app: Hono<BrokerEnv>,
  services: {
    readonly appId: string;
    readonly logs: LogSink;
    readonly calls: FunctionCalls;
    readonly invoker: FunctionInvoker;
    /** Registers a stream to end when the broker closes. */
    readonly track: (end: () => void) => () => void;
  },
): void {
  const { logs, calls, invoker } = services;
  const { logs: logsPath, logStream, functions, overview } = consoleApiPaths;
  scopeToApp(app, services.appId, [logsPath, functions, overview]);
  app.get(logsPath, (c) => {
    const filter = readLineFilter((name) => c.req.query(name));
    return c.json({ lines: logs.lines(filter), capacity: logs.capacity });
  });
  app.get(logStream, (c) => {
    const filter = { ...readLineFilter((name) => c.req.query(name)), limit: undefined };
    return liveTail(logs, filter, c.req.raw.signal, services.track);
  });
  app.get(functions, (c) =>
    c.json({
      functions: invoker
        .list()
        .map((fn) => ({ name: fn.name, access: fn.access, recent: calls.recent(fn.name, 10) }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    }),
  );
  app.get(overview, (c) => {
    const now = Date.now();
    const hourAgo = new Date(now - 3_600_000).toISOString();
    const requests = logs.lines({ from: hourAgo }).filter((l) => l.kind === 'request');
    return c.json({
      functions: invoker.list().length,
      calls: calls.overview(now),
      requests: {
        total: requests.length,
        errors: requests.filter((l) => l.kind === 'request' && requestLevel(l.status) === 'error')
          .length,
      },
      capacity: logs.capacity,
    });
  });
}

/** The live tail: each new matching line as an SSE `line` event, until the client goes. */
function liveTail(
  logs: LogSink,
  filter: LineFilter,
  signal: AbortSignal,
  track: (end: () => void) => () => void,
): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      const unsubscribe = logs.subscribe((line: KeptLine) => {
        if (lineMatches(line, filter)) send(`event: line\ndata: ${JSON.stringify(line)}\n\n`);
      });
      const heartbeat = setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS);
      let untrack = () => {};
      stop = () => {
        unsubscribe();
        clearInterval(heartbeat);
        untrack();
        try {
          controller.close();
        } catch {
          // Closed already (the client went first).
        }
      };
      untrack = track(stop);
      signal.addEventListener('abort', stop, { once: true });
      // The first bytes open the stream in the browser (EventSource fires `open`).
      send(': tail\n\n');
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}
