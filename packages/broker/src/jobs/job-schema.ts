import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * The job engine's tables, in the broker's internal `platform` schema (no app role reaches it).
 *
 * `platform.jobs` holds one row per job and per cron run (`kind`). A row carries its scope
 * (`app_id`, `environment`, `namespace`), its pinned policy (`max_attempts`, `concurrency`,
 * `retry_delay_seconds`, `retry_backoff`, `timeout_seconds`, copied from the queue declaration
 * at enqueue), the payload with its hash for the idempotency comparison, the delegated file
 * grant, and the lease of the attempt that is running (`lease_owner`, `lease_until`): a broker
 * renews its lease while the consumer runs, and any broker turns an expired lease into a used
 * attempt. Workers claim rows with `FOR UPDATE SKIP LOCKED` under a per-queue advisory lock,
 * so the concurrency count they read cannot race with another broker's claim.
 *
 * Idempotent: it adopts the table of a data directory made before the platform schema had
 * versions. Cron's own table is in `cron/cron-schema.ts`.
 */
export const jobSchemaSql = `
CREATE TABLE IF NOT EXISTS platform.jobs (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('job', 'cron')),
  app_id text NOT NULL,
  environment text NOT NULL,
  namespace text NOT NULL,
  queue text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'retry_wait', 'succeeded', 'dead_lettered')),
  payload jsonb NOT NULL,
  payload_hash text NOT NULL,
  idempotency_key text NOT NULL,
  attempt integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  concurrency integer NOT NULL,
  retry_delay_seconds integer NOT NULL,
  retry_backoff boolean NOT NULL,
  timeout_seconds integer NOT NULL,
  file_grants jsonb,
  grant_expires_at timestamptz,
  run_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  lease_owner text,
  lease_until timestamptz,
  last_error jsonb,
  UNIQUE (app_id, environment, namespace, kind, queue, idempotency_key)
);
CREATE INDEX IF NOT EXISTS jobs_pending_idx ON platform.jobs (app_id, environment, namespace, kind, queue, run_at)
  WHERE state IN ('queued', 'retry_wait');
CREATE INDEX IF NOT EXISTS jobs_running_idx ON platform.jobs (lease_until) WHERE state = 'running';
CREATE INDEX IF NOT EXISTS jobs_history_idx ON platform.jobs (app_id, environment, namespace, kind, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS jobs_finished_idx ON platform.jobs (finished_at) WHERE finished_at IS NOT NULL;
`;

/** The job table as a step of the platform schema (`app/platform-schema.ts` numbers it). */
export const jobTablesStep: SchemaChange = { name: 'jobs', sql: jobSchemaSql };

/**
 * An index of the active rows of each scope, for the active-jobs count of every enqueue. Without
 * it that count walked the scope's whole history (`jobs_history_idx`, finished rows included), so
 * an enqueue on PGlite took about 11 ms with 20,000 finished jobs kept, 3 ms with this index.
 */
export const jobActiveIndexStep: SchemaChange = {
  name: 'jobs-active-index',
  sql: `CREATE INDEX IF NOT EXISTS jobs_active_idx ON platform.jobs (app_id, environment, namespace, kind)
  WHERE state IN ('queued', 'running', 'retry_wait');`,
};

/**
 * Who delegated a job's file grant: the user whose enqueue named `files.read` (`NULL` for the
 * system, and for jobs without a grant). Reads under the grant end when that user loses access
 * to the app (docs/jobs.md, "Delegated files").
 */
export const jobGrantUserStep: SchemaChange = {
  name: 'jobs-grant-user',
  sql: 'ALTER TABLE platform.jobs ADD COLUMN IF NOT EXISTS grant_user_id text;',
};
