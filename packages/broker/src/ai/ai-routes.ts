import type { Hono } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import type { AiService } from './ai-service.ts';

/**
 * `GET /v1/apps/:appId/ai/calls?limit=n`: the recent AI calls, newest first, as
 * `{ calls: [{ at, functionName, requestId, kind, durationMs, outcome, content? }] }`. Never a
 * model or a key; the prompt and output (`content`) only when the developer opted in with
 * `PLATFORM_AI_SHOW_CONTENT=1`. Owner API, for the developer's own tools on this machine.
 *
 * `GET /v1/apps/:appId/ai/calls/per-minute`: the kept calls of each minute of the last hour,
 * `{ until, perMinute: { ok, failed } }` (the console's chart).
 */
export function mountAiRoutes(
  app: Hono<BrokerEnv>,
  services: { appId: string; ai: AiService },
): void {
  scopeToApp(app, services.appId, [ownerApiPaths.aiCalls]);
  app.get(ownerApiPaths.aiCallsPerMinute, (c) => c.json(services.ai.calls.perMinute(new Date())));
  app.get(ownerApiPaths.aiCalls, (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 50) || 50, 1), 500);
    return c.json({ calls: services.ai.calls.list(limit) });
  });
}
