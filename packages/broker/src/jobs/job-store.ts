import { createHash } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Database, Queryable, Transaction } from '../db/database.ts';
import type { GrantedFile } from '../functions/invocation-tokens.ts';
import { addSeconds } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import type { JobScope, PinnedPolicy, StoredError } from './job-policy.ts';
import { type JobRow, jobColumns } from './job-rows.ts';

/** A row to insert: a queued job or a cron run. */
export interface NewJob {
  readonly kind: 'job' | 'cron';
  readonly queue: string;
  readonly payload: Record<string, unknown>;
  readonly idempotencyKey: string;
  readonly delaySeconds: number;
  readonly policy: PinnedPolicy;
  readonly files: readonly GrantedFile[] | null;
  /** The user who delegates `files` (whose loss of access ends the grant); none for the system. */
  readonly grantUserId?: string | null | undefined;
}

/** `WHERE` fragment of a scope, with its parameters starting at `$1`. */
export const scopeSql = 'app_id = $1 AND environment = $2 AND namespace = $3';
export const scopeParams = (scope: JobScope): string[] => [
  scope.appId,
  scope.environment,
  scope.namespace,
];

/**
 * The hash the idempotency comparison uses: the payload with its keys sorted (so `{a,b}` and
 * `{b,a}` are the same input) and the ids of the delegated files.
 */
export function inputHash(payload: unknown, files: readonly GrantedFile[] | null): string {
  const ids = files ? files.map((f) => f.id).sort() : [];
  return createHash('sha256')
    .update(canonical({ payload, files: ids }))
    .digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Inserts a job unless its idempotency key is already used in the scope and queue: the same
 * input returns the original row (`created: false`), a different one `IDEMPOTENCY_KEY_REUSED`.
 * Enqueues of one scope run one at a time ({@link Database.exclusive}), which makes the check,
 * the active-jobs count and the insert one step, so a hundred concurrent enqueues with one key
 * create one job and the limit is never overshot. Cron runs skip the active-jobs limit:
 * capacity may delay a run, never drop it.
 */
export async function insertJob(
  db: Database,
  scope: JobScope,
  job: NewJob,
  now: Date,
): Promise<{ row: JobRow; created: boolean }> {
  return db.exclusive(enqueueKey(scope), (queries) => insertRow(queries, scope, job, now));
}

/** {@link insertJob} inside a transaction the caller holds (the cron scheduler's). */
export async function insertJobIn(
  tx: Transaction,
  scope: JobScope,
  job: NewJob,
  now: Date,
): Promise<{ row: JobRow; created: boolean }> {
  await tx.lock(enqueueKey(scope));
  return insertRow(tx, scope, job, now);
}

const enqueueKey = (scope: JobScope) =>
  `platform.jobs enqueue ${scope.appId} ${scope.environment} ${scope.namespace}`;

/** The insert of {@link insertJob}: its one write is the first statement. */
async function insertRow(
  tx: Queryable,
  scope: JobScope,
  job: NewJob,
  now: Date,
): Promise<{ row: JobRow; created: boolean }> {
  const hash = inputHash(job.payload, job.files);
  const p = job.policy;
  const grantExpires = job.files
    ? addSeconds(now, limits.fileGrant.expiresSeconds).toISOString()
    : null;
  const max = limits.jobs.activeMaxPerNamespace;
  // The usual enqueue is this one statement: it inserts nothing when the key is taken or the
  // scope is at its limit, and only then do we look at why. On PGlite, where every statement
  // waits for the one session, each statement saved is about a millisecond.
  const underLimit =
    job.kind === 'job'
      ? `WHERE (SELECT count(*) FROM platform.jobs WHERE ${scopeSql} AND kind = 'job'
                 AND state IN ('queued', 'running', 'retry_wait')) < ${max}`
      : '';
  const inserted = await tx.query<JobRow>(
    `INSERT INTO platform.jobs (id, kind, app_id, environment, namespace, queue, state, payload, payload_hash,
       idempotency_key, max_attempts, concurrency, retry_delay_seconds, retry_backoff, timeout_seconds,
       file_grants, grant_expires_at, run_at, created_at, updated_at, grant_user_id)
     SELECT $4::text, $5::text, $1::text, $2::text, $3::text, $6::text, 'queued', $7::jsonb, $8::text,
       $9::text, $10::int, $11::int, $12::int, $13::boolean, $14::int, $15::jsonb,
       $16::timestamptz, $17::timestamptz, $18::timestamptz, $18::timestamptz, $19::text
     ${underLimit}
     ON CONFLICT (app_id, environment, namespace, kind, queue, idempotency_key) DO NOTHING
     RETURNING ${jobColumns}`,
    [
      ...scopeParams(scope),
      newId('job'),
      job.kind,
      job.queue,
      JSON.stringify(job.payload),
      hash,
      job.idempotencyKey,
      p.maxAttempts,
      p.concurrency,
      p.retryDelaySeconds,
      p.retryBackoff,
      p.timeoutSeconds,
      job.files ? JSON.stringify(job.files) : null,
      grantExpires,
      addSeconds(now, job.delaySeconds).toISOString(),
      now.toISOString(),
      job.files ? (job.grantUserId ?? null) : null,
    ],
  );
  const row = inserted.rows[0];
  if (row) return { row, created: true };
  const existing = await tx.query<JobRow>(
    `SELECT ${jobColumns} FROM platform.jobs WHERE ${scopeSql} AND kind = $4 AND queue = $5 AND idempotency_key = $6`,
    [...scopeParams(scope), job.kind, job.queue, job.idempotencyKey],
  );
  const found = existing.rows[0];
  if (found) {
    if (found.payload_hash === hash) return { row: found, created: false };
    throw new PlatformError({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: `The idempotency key was already used in queue "${job.queue}" with a different payload; the original job is ${found.id}.`,
      details: { queue: job.queue, jobId: found.id },
    });
  }
  throw new PlatformError({
    code: 'ACTIVE_JOBS_LIMIT',
    message: `This app already holds ${max} active jobs in this namespace; wait for some to finish.`,
    details: { limit: max },
  });
}

/** One row of the scope by id and kind, or `undefined`. */
export async function findJob(
  db: Database,
  scope: JobScope,
  kind: 'job' | 'cron',
  id: string,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${jobColumns} FROM platform.jobs WHERE ${scopeSql} AND kind = $4 AND id = $5`,
    [...scopeParams(scope), kind, id],
  );
  return rows[0];
}

/**
 * Dead-letters every pending (`queued` or `retry_wait`) row of `kind` whose queue is not in
 * `active`, with `QUEUE_NOT_ACTIVE` (spec 3.1). Restoring the queue later does not redrive them.
 * Returns the ids.
 */
export async function deadLetterInactive(
  db: Database,
  scope: JobScope,
  kind: 'job' | 'cron',
  active: readonly string[],
  now: Date,
): Promise<string[]> {
  const error: StoredError = {
    code: 'QUEUE_NOT_ACTIVE',
    message:
      kind === 'job'
        ? 'The queue is no longer declared in platform.yaml; the job was dead-lettered.'
        : 'The cron schedule is no longer declared in platform.yaml; the run was dead-lettered.',
    status: 409,
  };
  const { rows } = await db.query<{ id: string }>(
    `UPDATE platform.jobs SET state = 'dead_lettered', finished_at = $5::timestamptz, updated_at = $5::timestamptz,
       last_error = $6::jsonb
     WHERE ${scopeSql} AND kind = $4 AND state IN ('queued', 'retry_wait') AND NOT (queue = ANY($7::text[]))
     RETURNING id`,
    [...scopeParams(scope), kind, now.toISOString(), JSON.stringify(error), [...active]],
  );
  return rows.map((r) => r.id);
}

/** Deletes terminal rows older than `limits.jobs.terminalRetentionSeconds`; returns how many. */
export async function sweepTerminal(db: Database, now: Date): Promise<number> {
  const cutoff = addSeconds(now, -limits.jobs.terminalRetentionSeconds).toISOString();
  const { rowCount } = await db.query(
    `DELETE FROM platform.jobs WHERE state IN ('succeeded', 'dead_lettered') AND finished_at < $1::timestamptz`,
    [cutoff],
  );
  return rowCount;
}
