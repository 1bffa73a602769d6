import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { BrokerEnv } from './broker-env.ts';

/** A listening broker server. */
export interface RunningServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  /** `http://localhost:<port>`, the app's URL. */
  readonly url: string;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

/**
 * Serves the broker app on Node (`@hono/node-server`). Binds 127.0.0.1 by default, since the
 * local broker is for this machine only.
 *
 * @example
 * ```ts
 * const server = await serveBroker(app, { port: 0 });
 * console.log(server.url);
 * await server.close();
 * ```
 */
export function serveBroker(
  app: Hono<BrokerEnv>,
  options: { port?: number; hostname?: string } = {},
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, port: options.port ?? 0, hostname: options.hostname ?? '127.0.0.1' },
      (info: AddressInfo) => {
        resolve({
          port: info.port,
          url: `http://localhost:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              if ('closeAllConnections' in server) server.closeAllConnections();
              server.close(() => done());
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
