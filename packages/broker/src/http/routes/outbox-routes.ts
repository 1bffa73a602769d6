import type { Hono } from 'hono';
import type { Outbox } from '../../outbox/outbox.ts';
import type { BrokerEnv } from '../broker-env.ts';

/** The broker API path of the captured development email (also read by `platform outbox`). */
export const OUTBOX_PATH = '/_platform/broker/outbox';

/**
 * `GET /_platform/broker/outbox?limit=n`: captured emails, newest first, as
 * `{ emails: [...] }`. The broker API is for the developer's own tools on this machine.
 */
export function mountOutboxRoutes(app: Hono<BrokerEnv>, services: { outbox: Outbox }): void {
  app.get(OUTBOX_PATH, async (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 50) || 50, 1), 500);
    return c.json({ emails: await services.outbox.list(limit) });
  });
}
