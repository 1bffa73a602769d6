import { PlatformError } from '@platform/errors';
import type { Hono } from 'hono';
import type { BrokerEnv } from '../../http/broker-env.ts';
import { jobsApiPaths } from '../../http/paths.ts';
import { parseQueryTime } from '../job-history.ts';
import type { JobService } from '../job-service.ts';
import { readAgentFeed } from './agent-feed.ts';

/**
 * Mounts `GET /v1/apps/:appId/feed?since=<ISO 8601>`, the Agent Feed (`AgentFeed`): job
 * signals since `since` (the last hour without it), the failure events and the built-in failure
 * alert. A `since` later than now is `INVALID_INPUT`. The MCP resource
 * `platform://apps/{appId}/feed` is its twin.
 */
export function mountFeedRoutes(app: Hono<BrokerEnv>, services: { jobs: JobService }): void {
  const { jobs } = services;
  app.get(jobsApiPaths.feed, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    const now = jobs.clock.now();
    const since = parseQueryTime(c.req.query('since'), 'since');
    if (since && since > now) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: 'since must not be later than now.',
        details: { field: 'since' },
      });
    }
    return c.json(await readAgentFeed(jobs.db, jobs.scope, now, since));
  });
}
