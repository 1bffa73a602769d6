import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import type { LogSink } from '../logs/log-sink.ts';
import { mountConsoleRoutes, recordRequests } from './console-routes.ts';
import { functionsSection, logsSection, overviewSection } from './console-sections.ts';
import { FunctionCalls } from './function-calls.ts';

/** What the console feature keeps: the recent Function calls and the open live tails. */
export interface ConsoleService {
  readonly calls: FunctionCalls;
  readonly logs: LogSink;
  readonly invoker: FunctionInvoker;
  /** Registers a live tail to end when the broker closes; the returned function forgets it. */
  track(end: () => void): () => void;
}

/**
 * The app console's own sections (docs/broker.md, "The app console"): Overview, Logs and
 * Functions, and the owner API they read. Each request's line is recorded from the edge, so
 * the Logs see every request, sign-in's refusals included.
 */
export const consoleFeature: BrokerFeature<'console', object, ConsoleService> = {
  name: 'console',
  start: (base) => {
    const calls = new FunctionCalls();
    const stopListening = base.invoker.onCall((call) => calls.add(call));
    base.onClose(() => {
      stopListening();
    });
    const open = new Set<() => void>();
    // Open live tails end before the server stops waiting for its connections.
    base.onClose(() => {
      for (const end of [...open]) end();
    });
    return {
      calls,
      logs: base.logs,
      invoker: base.invoker,
      track: (end) => {
        open.add(end);
        return () => open.delete(end);
      },
    };
  },
  mount: {
    edge: (app, service) => {
      app.use('*', recordRequests(service.logs, service.calls));
    },
    routes: (app, service, _needs, { appId }) => {
      mountConsoleRoutes(app, { appId, ...service });
    },
  },
  dashboard: [overviewSection, logsSection, functionsSection],
};
