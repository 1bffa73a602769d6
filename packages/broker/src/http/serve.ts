import type { AddressInfo } from 'node:net';
import { serve, type WebSocketServerLike } from '@hono/node-server';
import { limits } from '@platform/schema';
import type { Hono } from 'hono';
import { WebSocketServer } from 'ws';
import type { BrokerEnv } from './broker-env.ts';
import { foreignHostResponse, isOwnHost } from './host-check.ts';

/**
 * The WebSocket side of a broker's server (realtime): upgrades pass through the app like any
 * request (host check, admission, the route decides), and `ws` takes the socket only when the
 * route accepted it. A frame far beyond the realtime message limit closes the socket (1009)
 * before it is buffered whole; the limit itself is checked frame by frame with an answer.
 */
export function webSocketServer(): WebSocketServerLike {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: 4 * limits.realtime.messageMaxBytes,
  });
  // The adapter is written for `ws`; only `ws`'s overloaded typings differ from its own.
  return server as unknown as WebSocketServerLike;
}

/** A listening broker server. */
export interface RunningServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** `http://localhost:<port>`, the app's URL. */
  readonly url: string;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

/** A bound port whose app is not built yet: requests wait until {@link BrokerListener.serve}. */
export interface BrokerListener extends RunningServer {
  /** Starts answering with `app`, the requests that arrived before it included. Call it once. */
  serve(app: Hono<BrokerEnv>): RunningServer;
}

/**
 * Serves the broker app on Node (`@hono/node-server`) in two steps: binds the port first, then
 * {@link BrokerListener.serve} hands it the app. Whatever is built in between (the Function
 * runner, the broker URL of invocations) knows the port as a constant, and a taken port fails
 * before any service starts. Binds 127.0.0.1 by default, since the local broker is for this
 * machine only, and answers only requests whose `Host` is one of its loopback names at its port
 * (`HOST_NOT_ALLOWED` otherwise, {@link isOwnHost}): a guard against DNS rebinding.
 *
 * @example
 * ```ts
 * const listener = await listenBroker({ port: 0 });
 * const server = listener.serve(createBrokerApp(services(listener.port)));
 * await server.close();
 * ```
 */
export function listenBroker(
  options: { port?: number; hostname?: string } = {},
): Promise<BrokerListener> {
  let attach: (app: Hono<BrokerEnv>) => void = () => undefined;
  const attached = new Promise<Hono<BrokerEnv>>((resolve) => {
    attach = resolve;
  });
  let port = 0;
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: async (request, env) => {
          // Before the app: a request for another name is refused whatever its path.
          const host = request.headers.get('host');
          if (!isOwnHost(host, port)) return foreignHostResponse(host);
          return (await attached).fetch(request, env);
        },
        port: options.port ?? 0,
        hostname: options.hostname ?? '127.0.0.1',
        websocket: { server: webSocketServer() },
      },
      (info: AddressInfo) => {
        port = info.port;
        const running: RunningServer = {
          port: info.port,
          url: `http://localhost:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              // Requests still waiting for an app that never came are dropped with their sockets.
              if ('closeAllConnections' in server) server.closeAllConnections();
              server.close(() => done());
            }),
        };
        resolve({
          ...running,
          serve: (app) => {
            attach(app);
            return running;
          },
        });
      },
    );
    server.once('error', reject);
  });
}
