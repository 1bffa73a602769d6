import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { brokerApiPaths } from '../http/paths.ts';
import { listMail, type ReceivedMailLog } from './mail-log.ts';
import type { Outbox } from './outbox.ts';

/**
 * `GET /_platform/broker/outbox?limit=n`: captured (sent) and received emails side by side,
 * newest first, as `{ emails: [...] }`, each with its `direction` (`outbound` or `inbound`).
 * The broker API is for the developer's own tools on this machine.
 */
export function mountOutboxRoutes(
  app: Hono<BrokerEnv>,
  services: { outbox: Outbox; received?: ReceivedMailLog | undefined },
): void {
  app.get(brokerApiPaths.outbox, async (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 50) || 50, 1), 500);
    return c.json({ emails: await listMail(services.outbox, services.received, limit) });
  });
}
