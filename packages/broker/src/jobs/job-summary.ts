import { jobStates } from '@platform/schema/contract';
import type { QueueDeclaration } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import {
  inLastHourSql,
  type MinuteCount,
  minutesBeforeSql,
  type PerMinute,
  perMinute,
} from '../pages/dashboard/per-minute.ts';
import type { JobScope } from './job-policy.ts';
import { type PinnedPolicy, policyOf } from './job-policy.ts';
import { scopeParams, scopeSql } from './job-store.ts';

/** Jobs by outcome (spec 4.5 "totals"); every count is of jobs, never of attempts. */
export interface JobTotals {
  /** Jobs created. */
  readonly created: number;
  /** Jobs that needed another attempt: started more than once, or waiting for a retry now. */
  readonly retried: number;
  /** Jobs in `succeeded`. */
  readonly succeeded: number;
  /** Jobs in `dead_lettered` (attempts used up, a terminal error or `QUEUE_NOT_ACTIVE`). */
  readonly failed: number;
}

/** The jobs that are not finished yet, by state (spec 4.5 "current depth"). */
export interface JobDepth {
  readonly queued: number;
  readonly retryWait: number;
  readonly running: number;
  /** `queued + retryWait + running`: what counts against the active-jobs limit. */
  readonly total: number;
}

/** One declared queue: its policy (with the manifest defaults filled in) and its depth. */
export interface QueueSummary extends PinnedPolicy {
  readonly name: string;
  /** The consumer Function. */
  readonly function: string;
  readonly depth: JobDepth;
}

/** `GET /v1/apps/:appId/jobs/summary`: what the dashboard shows above the history. */
export interface JobSummary {
  /** Over the jobs created within `from`..`to` (inclusive) of the records the broker keeps. */
  readonly totals: JobTotals;
  /** Now, whatever `from` and `to` say. */
  readonly depth: JobDepth;
  readonly queues: readonly QueueSummary[];
}

interface CountRow {
  queue: string;
  created: number;
  retried: number;
  succeeded: number;
  failed: number;
  queued: number;
  retry_wait: number;
  running: number;
}

const emptyDepth: JobDepth = { queued: 0, retryWait: 0, running: 0, total: 0 };

const depthOf = (rows: readonly CountRow[]): JobDepth => {
  const queued = rows.reduce((n, r) => n + r.queued, 0);
  const retryWait = rows.reduce((n, r) => n + r.retry_wait, 0);
  const running = rows.reduce((n, r) => n + r.running, 0);
  return { queued, retryWait, running, total: queued + retryWait + running };
};

/**
 * Totals, current depth and per-queue policy of the scope's queue jobs (cron runs are not jobs
 * and are not counted). Only counts and the declarations: no payload, key or user is read.
 * Terminal records older than 14 days are gone, so the totals cover at most that long.
 *
 * @example
 * ```ts
 * const summary = await summarizeJobs(db, localScope, manifest.queues, {});
 * summary.totals.failed; // dead-lettered jobs of the last 14 days
 * ```
 */
export async function summarizeJobs(
  db: Database,
  scope: JobScope,
  queues: readonly QueueDeclaration[],
  range: { readonly from?: Date | undefined; readonly to?: Date | undefined },
): Promise<JobSummary> {
  const params: unknown[] = [...scopeParams(scope)];
  // The range narrows the totals only: depth is about now.
  const inRange: string[] = ['true'];
  if (range.from) {
    params.push(range.from.toISOString());
    inRange.push(`created_at >= $${params.length}::timestamptz`);
  }
  if (range.to) {
    params.push(range.to.toISOString());
    inRange.push(`created_at <= $${params.length}::timestamptz`);
  }
  const r = inRange.join(' AND ');
  const { rows } = await db.query<CountRow>(
    `SELECT queue,
       count(*) FILTER (WHERE ${r})::int AS created,
       count(*) FILTER (WHERE ${r} AND (attempt > 1 OR state = 'retry_wait'))::int AS retried,
       count(*) FILTER (WHERE ${r} AND state = 'succeeded')::int AS succeeded,
       count(*) FILTER (WHERE ${r} AND state = 'dead_lettered')::int AS failed,
       count(*) FILTER (WHERE state = 'queued')::int AS queued,
       count(*) FILTER (WHERE state = 'retry_wait')::int AS retry_wait,
       count(*) FILTER (WHERE state = 'running')::int AS running
     FROM platform.jobs WHERE ${scopeSql} AND kind = 'job' GROUP BY queue`,
    params,
  );
  const byQueue = new Map(rows.map((row) => [row.queue, row]));
  return {
    totals: {
      created: rows.reduce((n, row) => n + row.created, 0),
      retried: rows.reduce((n, row) => n + row.retried, 0),
      succeeded: rows.reduce((n, row) => n + row.succeeded, 0),
      failed: rows.reduce((n, row) => n + row.failed, 0),
    },
    depth: depthOf(rows),
    queues: queues.map((q) => {
      const row = byQueue.get(q.name);
      return {
        name: q.name,
        function: q.function,
        ...policyOf(q),
        depth: row ? depthOf([row]) : emptyDepth,
      };
    }),
  };
}

/** Jobs created in each minute of the last hour, by the state each is in now. */
export type JobsPerMinute = PerMinute<(typeof jobStates)[number]>;

/**
 * `GET /v1/apps/:appId/jobs/per-minute`: the scope's queue jobs created in each minute of the
 * hour before `until`, each counted under the state it is in now (so a minute's bar is the jobs
 * created then, and its parts say how they fared). Counted in SQL from the state and creation
 * time; no payload, key or user is read.
 */
export async function jobsPerMinute(
  db: Database,
  scope: JobScope,
  until: Date,
): Promise<JobsPerMinute> {
  const { rows } = await db.query<MinuteCount>(
    `SELECT ${minutesBeforeSql('created_at', 4)} AS ago, state AS series, count(*)::int AS count
       FROM platform.jobs
      WHERE ${scopeSql} AND kind = 'job' AND ${inLastHourSql('created_at', 4)}
      GROUP BY 1, 2`,
    [...scopeParams(scope), until.toISOString()],
  );
  return perMinute(until, jobStates, rows);
}
