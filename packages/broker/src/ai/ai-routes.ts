import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { brokerApiPaths } from '../http/paths.ts';
import type { AiService } from './ai-service.ts';

/**
 * `GET /_platform/broker/ai/calls?limit=n`: the recent AI calls, newest first, as
 * `{ calls: [{ at, functionName, requestId, kind, durationMs, outcome, content? }] }`. Never a
 * model or a key; the prompt and output (`content`) only when the developer opted in with
 * `PLATFORM_AI_SHOW_CONTENT=1`. The broker API is for the developer's own tools on this machine.
 */
export function mountAiRoutes(app: Hono<BrokerEnv>, services: { ai: AiService }): void {
  app.get(brokerApiPaths.aiCalls, (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 50) || 50, 1), 500);
    return c.json({ calls: services.ai.calls.list(limit) });
  });
}
