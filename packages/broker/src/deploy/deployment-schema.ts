import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * The deployments of `platform serve` (docs/production.md), in the central store: each
 * revision's metadata (its bytes are in the service's files folder), immutable once written,
 * and which revision of each app is active. A row is written only once the revision's
 * migrations succeeded, so a failed deployment leaves no trace here.
 */
export const deploymentsStep: SchemaChange = {
  name: 'deployments',
  sql: `
CREATE TABLE platform.deployments (
  id text PRIMARY KEY,
  app_id text NOT NULL REFERENCES platform.apps (app_id) ON DELETE CASCADE,
  digest text NOT NULL,
  manifest text NOT NULL,
  migrations text[] NOT NULL,
  functions text[] NOT NULL,
  archive_bytes bigint NOT NULL,
  deployed_by uuid NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX deployments_app ON platform.deployments (app_id, created_at);
CREATE TABLE platform.active_deployments (
  app_id text PRIMARY KEY REFERENCES platform.apps (app_id) ON DELETE CASCADE,
  deployment_id text NOT NULL REFERENCES platform.deployments (id),
  activated_by uuid NOT NULL,
  activated_at timestamptz NOT NULL
);
`,
};
