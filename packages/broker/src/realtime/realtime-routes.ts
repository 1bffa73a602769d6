import { upgradeWebSocket } from '@hono/node-server';
import { PlatformError } from '@platform/errors';
import { realtimeRoutes } from '@platform/schema/routes';
import type { Hono } from 'hono';
import type { WebSocket } from 'ws';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { Authenticate, Caller } from '../kernel/caller.ts';
import type { RealtimeHub } from './realtime-hub.ts';

/**
 * The realtime socket (`realtimeRoutes.socket`): a `GET` with `Upgrade: websocket`, mounted after
 * sign-in's admission (a private app admits only its granted people). The caller is known before
 * the upgrade, by the session cookie of a browser or the `Authorization: Bearer` credential of
 * any other client (an app access token acts as the owner). A browser's request must come from
 * the app's own origin: a cookie travels with a WebSocket opened by any site, so another site's
 * page would otherwise act for the signed-in user (cross-site WebSocket hijacking).
 */
export function mountRealtimeRoutes(
  app: Hono<BrokerEnv>,
  services: { readonly hub: RealtimeHub; readonly authenticate: Authenticate },
): void {
  const { hub, authenticate } = services;
  const callers = new WeakMap<Request, { caller: Caller; recheck: () => Promise<Caller> }>();
  app.get(
    realtimeRoutes.socket.path,
    async (c, next) => {
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
        throw new PlatformError({
          code: 'INVALID_REQUEST',
          message: 'The realtime address takes WebSocket connections only (Upgrade: websocket).',
          status: 426,
        });
      }
      const origin = c.req.header('origin');
      if (origin !== undefined && !sameHost(origin, c.req.url)) {
        throw new PlatformError({
          code: 'ACCESS_DENIED',
          message: 'A realtime connection must come from a page of the app itself.',
        });
      }
      const caller = await authenticate(c.req.raw);
      // The credential is checked again with the upgrade's own headers (cookie, bearer).
      const headers = new Headers(c.req.raw.headers);
      const url = c.req.url;
      callers.set(c.req.raw, {
        caller,
        recheck: () => authenticate(new Request(url, { headers })),
      });
      await next();
    },
    upgradeWebSocket((c) => {
      const known = callers.get(c.req.raw);
      let handlers: ReturnType<RealtimeHub['open']> | undefined;
      return {
        onOpen: (_event, ws) => {
          if (!known) return ws.close(1011, 'Not authenticated');
          const raw = ws.raw as WebSocket;
          handlers = hub.open(
            {
              send: (text) => ws.send(text),
              close: (code, reason) => ws.close(code, reason),
              ping: () => raw.ping(),
              terminate: () => raw.terminate(),
            },
            known.caller,
            known.recheck,
          );
          raw.on('pong', () => handlers?.pong());
        },
        onMessage: (event) => {
          if (typeof event.data === 'string') handlers?.message(event.data);
          else handlers?.message('');
        },
        onClose: () => handlers?.close(),
        onError: () => handlers?.close(),
      };
    }),
  );
}

function sameHost(origin: string, url: string): boolean {
  try {
    return new URL(origin).host === new URL(url).host;
  } catch {
    return false;
  }
}
