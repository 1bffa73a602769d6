import type { Hono } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import { listMail, type ReceivedMailLog } from './mail-log.ts';
import type { Outbox } from './outbox.ts';

/**
 * `GET /v1/apps/:appId/outbox?limit=n`: captured (sent) and received emails side by side,
 * newest first, as `{ emails: [...] }`, each with its `direction` (`outbound` or `inbound`).
 * Owner API, for the developer's own tools on this machine.
 */
export function mountOutboxRoutes(
  app: Hono<BrokerEnv>,
  services: { appId: string; outbox: Outbox; received?: ReceivedMailLog | undefined },
): void {
  scopeToApp(app, services.appId, [ownerApiPaths.outbox]);
  app.get(ownerApiPaths.outbox, async (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 50) || 50, 1), 500);
    return c.json({ emails: await listMail(services.outbox, services.received, limit) });
  });
}
