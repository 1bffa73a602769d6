import type { RouteResponse, runtimeContract } from '@platform/schema/contract';
import type { GrantedFile } from '../functions/invocation-tokens.ts';
import type { StoredError } from './job-policy.ts';

/** A job as `jobs.enqueue`, `jobs.get` and the jobs API return it (the contract's `jobSchema`). */
export type Job = RouteResponse<typeof runtimeContract.jobsGet>['job'];

/** The columns of `platform.jobs` the engine reads. */
export interface JobRow {
  id: string;
  kind: 'job' | 'cron';
  queue: string;
  state: Job['state'];
  payload: Record<string, unknown>;
  payload_hash: string;
  attempt: number;
  max_attempts: number;
  concurrency: number;
  retry_delay_seconds: number;
  retry_backoff: boolean;
  timeout_seconds: number;
  file_grants: GrantedFile[] | null;
  grant_expires_at: Date | string | null;
  /** The user who delegated the file grant, `null` for the system or without a grant. */
  grant_user_id: string | null;
  run_at: Date | string;
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
  last_error: StoredError | null;
}

// pg returns Date objects, PGlite's worker may hand back strings: both become ISO 8601.
const iso = (value: Date | string): string => new Date(value).toISOString();

/**
 * The safe metadata of a row: never the payload, the idempotency key, the file grant or who
 * enqueued it. `runAt` is `null` once the job is terminal.
 */
export function toJob(row: JobRow): Job {
  const terminal = row.state === 'succeeded' || row.state === 'dead_lettered';
  return {
    id: row.id,
    queue: row.queue,
    state: row.state,
    attempt: row.attempt,
    maxAttempts: row.max_attempts,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    runAt: terminal ? null : iso(row.run_at),
    finishedAt: row.finished_at === null ? null : iso(row.finished_at),
    lastError:
      row.last_error === null
        ? null
        : { code: row.last_error.code, message: row.last_error.message },
  };
}

/** The columns `toJob` needs, for `SELECT` lists. */
export const jobColumns =
  'id, kind, queue, state, payload, payload_hash, attempt, max_attempts, concurrency, retry_delay_seconds, retry_backoff, timeout_seconds, file_grants, grant_expires_at, grant_user_id, run_at, created_at, updated_at, finished_at, last_error';
