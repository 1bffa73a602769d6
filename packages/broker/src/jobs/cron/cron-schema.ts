import type { SchemaChange } from '../../db/platform-schema.ts';

/**
 * The cron scheduler's table as a step of the platform schema (`app/platform-schema.ts`
 * numbers it): `platform.cron_state` holds, per schedule, the instant up to which its
 * occurrences have been handled, shared by every broker on the database so each occurrence
 * runs once. Idempotent: it adopts the table of a data directory made before the platform
 * schema had versions.
 */
export const cronStateStep: SchemaChange = {
  name: 'cron',
  sql: `
CREATE TABLE IF NOT EXISTS platform.cron_state (
  app_id text NOT NULL,
  environment text NOT NULL,
  namespace text NOT NULL,
  name text NOT NULL,
  schedule text NOT NULL,
  timezone text NOT NULL,
  enabled boolean NOT NULL,
  checked_until timestamptz NOT NULL,
  last_scheduled_at timestamptz,
  last_job_id text,
  PRIMARY KEY (app_id, environment, namespace, name)
);
`,
};
