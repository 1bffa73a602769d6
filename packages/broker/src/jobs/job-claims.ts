import type { Database } from '../db/database.ts';
import { addSeconds } from '../kernel/clock.ts';
import {
  boundedError,
  type JobScope,
  retryDelaySeconds,
  retryDelaySql,
  type StoredError,
} from './job-policy.ts';
import { type JobRow, jobColumns } from './job-rows.ts';
import { scopeParams, scopeSql } from './job-store.ts';

/** Who holds a running attempt: the worker's id and the attempt number (a fencing token). */
export interface Lease {
  readonly owner: string;
  readonly attempt: number;
}

/**
 * Claims up to `max` due rows of one queue for `owner`. One claim of a queue runs at a time
 * ({@link Database.exclusive}); it takes pending rows with `FOR UPDATE SKIP LOCKED` (rows another
 * transaction is finishing or recovering are skipped, not waited for), each with the count of
 * running rows, and admits each while the running count stays below that row's pinned
 * `concurrency`. Each admitted row becomes `running`, its attempt number grows by one and it
 * gets a lease until `now + leaseSeconds`.
 */
export async function claimJobs(
  db: Database,
  scope: JobScope,
  target: { kind: 'job' | 'cron'; queue: string },
  options: { max: number; owner: string; leaseSeconds: number; now: Date },
): Promise<JobRow[]> {
  if (options.max <= 0) return [];
  const key = `platform.jobs claim ${scope.appId} ${scope.environment} ${scope.namespace} ${target.kind} ${target.queue}`;
  return db.exclusive(key, async (tx) => {
    // The due rows carry the running count, so an idle queue costs one statement.
    const due = await tx.query<{ id: string; concurrency: number; busy: number }>(
      `SELECT id, concurrency,
              (SELECT count(*)::int FROM platform.jobs
                WHERE ${scopeSql} AND kind = $4 AND queue = $5 AND state = 'running') AS busy
         FROM platform.jobs
        WHERE ${scopeSql} AND kind = $4 AND queue = $5 AND state IN ('queued', 'retry_wait') AND run_at <= $6::timestamptz
        ORDER BY run_at, created_at, id LIMIT $7 FOR UPDATE SKIP LOCKED`,
      [...scopeParams(scope), target.kind, target.queue, options.now.toISOString(), options.max],
    );
    const busy = due.rows[0]?.busy ?? 0;
    const ids: string[] = [];
    for (const row of due.rows) if (busy + ids.length < row.concurrency) ids.push(row.id);
    if (ids.length === 0) return [];
    const claimed = await tx.query<JobRow>(
      `UPDATE platform.jobs SET state = 'running', attempt = attempt + 1, started_at = $2::timestamptz,
         updated_at = $2::timestamptz, lease_owner = $3, lease_until = $4::timestamptz
       WHERE id = ANY($1::text[]) RETURNING ${jobColumns}`,
      [
        ids,
        options.now.toISOString(),
        options.owner,
        addSeconds(options.now, options.leaseSeconds).toISOString(),
      ],
    );
    return claimed.rows;
  });
}

/** Extends a lease; `false` when the attempt no longer belongs to `lease` (it was recovered). */
export async function renewLease(
  db: Database,
  id: string,
  lease: Lease,
  until: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE platform.jobs SET lease_until = $4::timestamptz
      WHERE id = $1 AND lease_owner = $2 AND attempt = $3 AND state = 'running'`,
    [id, lease.owner, lease.attempt, until.toISOString()],
  );
  return rowCount > 0;
}

/** A held attempt that succeeded, as {@link completeJobs} records it. */
export interface Completion {
  readonly id: string;
  readonly lease: Lease;
  /** When it finished. */
  readonly at: Date;
}

/**
 * Marks held attempts `succeeded`, all in one statement. Answers the ones recorded, as
 * {@link completionKey}s; an attempt missing from it had lost its lease meanwhile.
 */
export async function completeJobs(
  db: Database,
  completions: readonly Completion[],
): Promise<Set<string>> {
  const { rows } = await db.query<{ id: string; attempt: number }>(
    `UPDATE platform.jobs AS j SET state = 'succeeded', finished_at = c.at, updated_at = c.at,
       lease_owner = NULL, lease_until = NULL
       FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[]) AS c(id, owner, attempt, at)
      WHERE j.id = c.id AND j.lease_owner = c.owner AND j.attempt = c.attempt AND j.state = 'running'
      RETURNING j.id, j.attempt`,
    [
      completions.map((c) => c.id),
      completions.map((c) => c.lease.owner),
      completions.map((c) => c.lease.attempt),
      completions.map((c) => c.at.toISOString()),
    ],
  );
  return new Set(rows.map((row) => completionKey(row.id, row.attempt)));
}

/** How {@link completeJobs} names a recorded attempt. */
export const completionKey = (id: string, attempt: number): string => `${id}#${attempt}`;

/**
 * Records a failed attempt of `row` (as claimed): `retry_wait` with the pinned delay while
 * `retry` holds, attempts remain and the queue is still declared; otherwise `dead_lettered`
 * (with `QUEUE_NOT_ACTIVE` when only the missing queue stopped a retry). Returns the new state,
 * or `undefined` when the lease was lost meanwhile.
 */
export async function failJob(
  db: Database,
  row: JobRow,
  lease: Lease,
  verdict: { retry: boolean; error: StoredError; queueActive: boolean },
  now: Date,
): Promise<'retry_wait' | 'dead_lettered' | undefined> {
  const attemptsLeft = lease.attempt < row.max_attempts;
  const retry = verdict.retry && attemptsLeft && verdict.queueActive;
  const error =
    verdict.retry && attemptsLeft && !verdict.queueActive
      ? boundedError(
          'QUEUE_NOT_ACTIVE',
          `The queue is no longer declared; last failure: ${verdict.error.message}`,
          409,
        )
      : verdict.error;
  const policy = { retryDelaySeconds: row.retry_delay_seconds, retryBackoff: row.retry_backoff };
  const state = retry ? 'retry_wait' : 'dead_lettered';
  const { rowCount } = await db.query(
    `UPDATE platform.jobs SET state = $4, run_at = $5::timestamptz, finished_at = $6::timestamptz,
       updated_at = $7::timestamptz, last_error = $8::jsonb, lease_owner = NULL, lease_until = NULL
      WHERE id = $1 AND lease_owner = $2 AND attempt = $3 AND state = 'running'`,
    [
      row.id,
      lease.owner,
      lease.attempt,
      state,
      retry
        ? addSeconds(now, retryDelaySeconds(policy, lease.attempt)).toISOString()
        : now.toISOString(),
      retry ? null : now.toISOString(),
      now.toISOString(),
      JSON.stringify(error),
    ],
  );
  return rowCount > 0 ? state : undefined;
}

/**
 * Turns every `running` row whose lease expired (its broker was killed or lost the database)
 * into a used attempt: `retry_wait` after the pinned delay while attempts remain, otherwise
 * `dead_lettered`, with `JOB_ATTEMPT_LOST`. Any broker may run it; rows are taken with
 * `SKIP LOCKED`. Returns the recovered ids.
 */
export async function recoverExpiredLeases(db: Database, now: Date): Promise<string[]> {
  const error = boundedError(
    'JOB_ATTEMPT_LOST',
    'The broker running this attempt stopped before it finished; the attempt counts as used.',
    500,
  );
  const { rows } = await db.query<{ id: string }>(
    `UPDATE platform.jobs SET
       state = CASE WHEN attempt >= max_attempts THEN 'dead_lettered' ELSE 'retry_wait' END,
       run_at = CASE WHEN attempt >= max_attempts THEN $1::timestamptz
         ELSE $1::timestamptz + make_interval(secs => (${retryDelaySql})::double precision) END,
       finished_at = CASE WHEN attempt >= max_attempts THEN $1::timestamptz ELSE NULL END,
       updated_at = $1::timestamptz, lease_owner = NULL, lease_until = NULL, last_error = $2::jsonb
     WHERE id IN (SELECT id FROM platform.jobs WHERE state = 'running' AND lease_until < $1::timestamptz
                  FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    [now.toISOString(), JSON.stringify(error)],
  );
  return rows.map((r) => r.id);
}
