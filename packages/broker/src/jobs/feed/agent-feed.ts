import { limits } from '@platform/schema';
import type { Database } from '../../db/database.ts';
import type { JobScope } from '../job-policy.ts';
import { scopeParams, scopeSql } from '../job-store.ts';

/** The Agent Feed's signal names (spec 4.5). */
export const feedSignals = [
  'jobs.created',
  'jobs.retried',
  'jobs.succeeded',
  'jobs.failed',
  'jobs.active',
] as const;

/** One signal name of {@link feedSignals}. */
export type FeedSignal = (typeof feedSignals)[number];

/** A failed attempt of a job: what an agent needs to look into it, never its payload. */
export interface JobFailureEvent {
  readonly jobId: string;
  readonly queue: string;
  /** `retry_wait` when another attempt follows, `dead_lettered` when none does. */
  readonly state: 'retry_wait' | 'dead_lettered';
  readonly attempt: number;
  readonly maxAttempts: number;
  /** When the attempt failed. */
  readonly at: string;
  readonly error: { readonly code: string; readonly message: string };
}

/** The built-in background-job failure alert. */
export interface JobFailureAlert {
  readonly name: 'jobs.failure';
  /** `firing` while a job has failed for good within the alert's window, else `ok`. */
  readonly state: 'firing' | 'ok';
  /** The alert's window in seconds, ending now. */
  readonly windowSeconds: number;
  /** Jobs that failed for good within the window. */
  readonly failedJobs: number;
  /** Their queues, sorted. */
  readonly queues: readonly string[];
  /** The earliest of those failures; `null` when the alert is `ok`. */
  readonly since: string | null;
  readonly message: string;
}

/**
 * `GET /v1/apps/:appId/feed`: what happened to the app's background jobs since a moment, for
 * agents (docs/jobs.md "Agent Feed"). Counts, states and error codes only.
 */
export interface AgentFeed {
  readonly window: { readonly from: string; readonly to: string };
  /**
   * Jobs created, needing another attempt, succeeded and failed for good within the window;
   * `jobs.active` is the jobs not finished now (queued, waiting for a retry or running).
   */
  readonly signals: Readonly<Record<FeedSignal, number>>;
  /** Failed attempts within the window, newest first, at most `limits.jobs.feedFailuresMax`. */
  readonly failures: readonly JobFailureEvent[];
  readonly alerts: readonly JobFailureAlert[];
}

interface CountRow {
  created: number;
  retried: number;
  succeeded: number;
  failed: number;
  active: number;
}

interface FailureRow {
  id: string;
  queue: string;
  state: 'retry_wait' | 'dead_lettered';
  attempt: number;
  max_attempts: number;
  at: Date | string;
  last_error: { code?: string; message?: string } | null;
}

const iso = (at: Date | string) => new Date(at).toISOString();

/**
 * Reads the Agent Feed of the scope's queue jobs from their records: a job's events are told by
 * its times (created, updated, finished) and state, so the feed costs no write on the job path.
 * One consequence: a job that failed an attempt and then succeeded counts as retried and
 * succeeded, and its failed attempt is no longer listed among the failure events.
 *
 * @example
 * ```ts
 * const feed = await readAgentFeed(db, scope, new Date(), undefined);
 * feed.alerts[0].state; // 'firing' while a job failed for good in the last 15 minutes
 * ```
 */
export async function readAgentFeed(
  db: Database,
  scope: JobScope,
  now: Date,
  since: Date | undefined,
): Promise<AgentFeed> {
  const from = since ?? new Date(now.getTime() - limits.jobs.feedWindowSeconds * 1000);
  const alertFrom = new Date(now.getTime() - limits.jobs.failureAlertSeconds * 1000);
  const params = [...scopeParams(scope), from.toISOString(), now.toISOString()];
  const f = params.length - 1;
  const t = params.length;
  const inWindow = (column: string) =>
    `${column} >= $${f}::timestamptz AND ${column} <= $${t}::timestamptz`;
  const where = `${scopeSql} AND kind = 'job'`;
  const [counts, failures, alert] = await Promise.all([
    db.query<CountRow>(
      `SELECT
         count(*) FILTER (WHERE ${inWindow('created_at')})::int AS created,
         count(*) FILTER (WHERE ${inWindow('updated_at')} AND (attempt > 1 OR state = 'retry_wait'))::int AS retried,
         count(*) FILTER (WHERE ${inWindow('finished_at')} AND state = 'succeeded')::int AS succeeded,
         count(*) FILTER (WHERE ${inWindow('finished_at')} AND state = 'dead_lettered')::int AS failed,
         count(*) FILTER (WHERE state IN ('queued', 'retry_wait', 'running'))::int AS active
       FROM platform.jobs WHERE ${where}`,
      params,
    ),
    db.query<FailureRow>(
      `SELECT id, queue, state, attempt, max_attempts, updated_at AS at, last_error
       FROM platform.jobs
       WHERE ${where} AND last_error IS NOT NULL AND state IN ('retry_wait', 'dead_lettered')
         AND ${inWindow('updated_at')}
       ORDER BY updated_at DESC, id DESC LIMIT ${limits.jobs.feedFailuresMax}`,
      params,
    ),
    db.query<{ failed: number; since: Date | string | null; queues: string[] | null }>(
      `SELECT count(*)::int AS failed, min(finished_at) AS since,
         array_agg(DISTINCT queue ORDER BY queue) AS queues
       FROM platform.jobs
       WHERE ${where} AND state = 'dead_lettered'
         AND finished_at >= $${f}::timestamptz AND finished_at <= $${t}::timestamptz`,
      [...scopeParams(scope), alertFrom.toISOString(), now.toISOString()],
    ),
  ]);
  const c = counts.rows[0] as CountRow;
  const a = alert.rows[0] ?? { failed: 0, since: null, queues: null };
  const queues = a.failed > 0 ? (a.queues ?? []) : [];
  const minutes = Math.round(limits.jobs.failureAlertSeconds / 60);
  return {
    window: { from: from.toISOString(), to: now.toISOString() },
    signals: {
      'jobs.created': c.created,
      'jobs.retried': c.retried,
      'jobs.succeeded': c.succeeded,
      'jobs.failed': c.failed,
      'jobs.active': c.active,
    },
    failures: failures.rows.map((row) => ({
      jobId: row.id,
      queue: row.queue,
      state: row.state,
      attempt: row.attempt,
      maxAttempts: row.max_attempts,
      at: iso(row.at),
      error: {
        code: row.last_error?.code ?? 'INTERNAL',
        message: row.last_error?.message ?? '',
      },
    })),
    alerts: [
      {
        name: 'jobs.failure',
        state: a.failed > 0 ? 'firing' : 'ok',
        windowSeconds: limits.jobs.failureAlertSeconds,
        failedJobs: a.failed,
        queues,
        since: a.failed > 0 && a.since !== null ? iso(a.since) : null,
        message:
          a.failed > 0
            ? `${a.failed} background job${a.failed === 1 ? '' : 's'} failed for good in the last ${minutes} minutes (${queues.join(', ')}).`
            : `No background job failed for good in the last ${minutes} minutes.`,
      },
    ],
  };
}
