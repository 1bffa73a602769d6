import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { jobsApiPaths } from '../http/paths.ts';
import { parseJobListQuery } from './job-history.ts';
import type { JobService } from './job-service.ts';

/**
 * Mounts the jobs API of spec 4.1 for the broker's app:
 *
 * - `GET /v1/apps/:appId/jobs?from&to&queue&state&limit&cursor` answers
 *   `{ jobs: Job[], nextCursor: string | null }`, newest first, `from`/`to` inclusive ISO 8601
 *   creation times, `limit` 1..100 (default 25);
 * - `GET /v1/apps/:appId/jobs/:jobId` answers `{ job }` or 404 `JOB_NOT_FOUND`;
 * - `POST …/jobs/:jobId/retry` runs a dead-lettered job again from its first attempt, and
 *   `POST …/jobs/:jobId/cancel` dead-letters a pending one with `JOB_CANCELLED` (the console's
 *   actions); `{ job }`, or `INVALID_INPUT` for a job in another state.
 *
 * Items are the contract's `jobSchema` (safe metadata): never payloads, idempotency keys, file
 * grants or who enqueued. An unknown `appId` is 404 `APP_NOT_FOUND`. Like the rest of the
 * broker API it serves the developer's own tools on this machine (127.0.0.1 only).
 */
export function mountJobsRoutes(app: Hono<BrokerEnv>, services: { jobs: JobService }): void {
  const { jobs } = services;
  app.get(jobsApiPaths.list, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    return c.json(await jobs.list(parseJobListQuery(c.req.query())));
  });
  app.get(jobsApiPaths.get, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    return c.json({ job: await jobs.get(c.req.param('jobId')) });
  });
  app.post(jobsApiPaths.retry, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    return c.json({ job: await jobs.retry(c.req.param('jobId')) });
  });
  app.post(jobsApiPaths.cancel, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    return c.json({ job: await jobs.cancel(c.req.param('jobId')) });
  });
}
