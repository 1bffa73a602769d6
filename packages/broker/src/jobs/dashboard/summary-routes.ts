import { PlatformError } from '@platform/errors';
import { runtimeContract } from '@platform/schema/contract';
import type { Hono } from 'hono';
import { bodyLimits, parseWith, readJsonBody } from '../../http/body.ts';
import type { BrokerEnv } from '../../http/broker-env.ts';
import { jobsApiPaths } from '../../http/paths.ts';
import { CronScheduler } from '../cron/cron-scheduler.ts';
import { findCronRun, summarizeCron } from '../cron/cron-summary.ts';
import { parseJobListQuery } from '../job-history.ts';
import type { JobService } from '../job-service.ts';
import { jobsPerMinute, summarizeJobs } from '../job-summary.ts';

/**
 * Mounts what the dashboard's Background jobs section (spec 4.5) and the CLI need beside the
 * jobs API of spec 4.1 (whose paths and shapes the spec leaves open; these are ours):
 *
 * - `GET /v1/apps/:appId/jobs/summary?from&to` answers {@link JobSummary}: totals of the jobs
 *   created in the inclusive range (all kept records without one), current depth, and each
 *   declared queue's policy and depth;
 * - `GET /v1/apps/:appId/jobs/per-minute` answers `JobsPerMinute`: the jobs created in
 *   each minute of the last hour, by the state each is in now (the console's chart);
 * - `GET /v1/apps/:appId/cron` answers `{ schedules: CronSummary[] }` with each schedule's
 *   latest run and next occurrence;
 * - `POST /v1/apps/:appId/cron/:name/run` (`platform cron run`) runs a declared schedule now
 *   and answers 202 `{ run: { name, scheduledAt, runId } }`, or 404 `CRON_NOT_DECLARED`;
 * - `GET /v1/apps/:appId/cron/runs/:runId` answers `{ run }` (its state and latest error), or
 *   404 `JOB_NOT_FOUND`;
 * - `POST /v1/apps/:appId/queues/:queue/jobs` (`platform jobs enqueue`) enqueues a job as the
 *   system, with the body of `jobs.enqueue` in a Function (`payload`, `idempotencyKey`,
 *   `delaySeconds`), and answers 201 `{ job, created }` (200 for a repeated key), or 404
 *   `QUEUE_NOT_DECLARED`.
 *
 * Register it before the jobs API, whose `/jobs/:jobId` would otherwise take `/jobs/summary`.
 * Only counts, declarations and run states: never payloads, idempotency keys or users.
 */
export function mountJobSummaryRoutes(app: Hono<BrokerEnv>, services: { jobs: JobService }): void {
  const { jobs } = services;
  // Not started: it only computes next runs and inserts manual runs; the broker's own scheduler
  // (sharing the same tables and clock) does the ticking.
  const scheduler = new CronScheduler({ jobs });
  app.get(jobsApiPaths.summary, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    const { from, to } = parseJobListQuery({ from: c.req.query('from'), to: c.req.query('to') });
    return c.json(await summarizeJobs(jobs.db, jobs.scope, jobs.queues, { from, to }));
  });
  app.get(jobsApiPaths.perMinute, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    return c.json(await jobsPerMinute(jobs.db, jobs.scope, jobs.clock.now()));
  });
  app.get(jobsApiPaths.cron, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    const schedules = await summarizeCron(jobs.db, jobs.scope, jobs.cron, (d) =>
      scheduler.nextRun(d),
    );
    return c.json({ schedules });
  });
  app.post(jobsApiPaths.cronRun, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    // A JSON content type cannot be sent cross-site without a CORS preflight (which the broker
    // never grants), so a web page the developer visits cannot start runs on their broker.
    if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) {
      throw new PlatformError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Send the manual cron trigger with content-type: application/json.',
      });
    }
    const run = await scheduler.trigger(c.req.param('name'));
    return c.json({ run }, 202);
  });
  app.post(jobsApiPaths.enqueue, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    // JSON only (readJsonBody refuses other types): a cross-site form cannot enqueue work.
    const body = parseWith(
      runtimeContract.jobsEnqueue.request,
      await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json }),
    );
    const { job, created } = await jobs.enqueue(c.req.param('queue'), body);
    return c.json({ job, created }, created ? 201 : 200);
  });
  app.get(jobsApiPaths.cronRunGet, async (c) => {
    jobs.checkApp(c.req.param('appId'));
    const run = await findCronRun(jobs.db, jobs.scope, c.req.param('runId'));
    if (!run) {
      throw new PlatformError({
        code: 'JOB_NOT_FOUND',
        message: 'No cron run with this id exists in this app.',
        details: { id: c.req.param('runId') },
      });
    }
    return c.json({ run });
  });
}
