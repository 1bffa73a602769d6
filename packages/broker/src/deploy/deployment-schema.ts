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

/**
 * The apps `platform serve` no longer has: an app that had a deployment and left the registry
 * (its organisation's only member deleted their account, which erases the organisation's apps,
 * spec 3.5) is recorded here, in the same transaction, so its address answers `APP_DELETED`
 * (410) after its revision stopped and the service restarted, rather than the 404 of an address
 * where nothing was ever deployed. A trigger records it whoever deletes the row. A later
 * deployment of the same id makes a new app: the registry row decides, this row stays as history.
 */
export const deletedAppsStep: SchemaChange = {
  name: 'deleted-apps',
  sql: `
CREATE TABLE platform.deleted_apps (
  app_id text PRIMARY KEY,
  deleted_at timestamptz NOT NULL
);
CREATE FUNCTION platform.record_deleted_app() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM platform.deployments WHERE app_id = OLD.app_id) THEN
    INSERT INTO platform.deleted_apps (app_id, deleted_at) VALUES (OLD.app_id, now())
      ON CONFLICT (app_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at;
  END IF;
  RETURN OLD;
END;
$$;
CREATE TRIGGER apps_record_deleted BEFORE DELETE ON platform.apps
  FOR EACH ROW EXECUTE FUNCTION platform.record_deleted_app();
`,
};

/**
 * When the service emptied a deleted app's file store (docs/backups.md): its files at once,
 * its backups once their retention ended, within 30 days of the deletion (spec 3.5). A new
 * deletion of the same app id, after it was deployed anew, starts the sweep again.
 */
export const deletedAppFilesErasedStep: SchemaChange = {
  name: 'deleted-app files erased',
  sql: `
ALTER TABLE platform.deleted_apps ADD COLUMN files_erased_at timestamptz;
CREATE OR REPLACE FUNCTION platform.record_deleted_app() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM platform.deployments WHERE app_id = OLD.app_id) THEN
    INSERT INTO platform.deleted_apps (app_id, deleted_at) VALUES (OLD.app_id, now())
      ON CONFLICT (app_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at, files_erased_at = NULL;
  END IF;
  RETURN OLD;
END;
$$;
`,
};

/**
 * The custom domains of `platform serve`'s apps (spec 2.4, 8; docs/production.md): each name
 * belongs to one app, pending until its owner proves control by serving the verification token
 * at the name's well-known path, then answered by that app. They go with their app (spec 3.5).
 */
export const customDomainsStep: SchemaChange = {
  name: 'custom-domains',
  sql: `
CREATE TABLE platform.custom_domains (
  domain text PRIMARY KEY,
  app_id text NOT NULL REFERENCES platform.apps (app_id) ON DELETE CASCADE,
  token text NOT NULL,
  added_by uuid NOT NULL,
  added_at timestamptz NOT NULL,
  verified_at timestamptz,
  last_check text
);
CREATE INDEX custom_domains_app ON platform.custom_domains (app_id);
`,
};

/**
 * Each revision's archive, beside its row in the central store, so every `platform serve` node
 * on the same PostgreSQL can unpack and start a revision another node received. Written in the
 * transaction that records the deployment (no row without its bytes) and removed with it.
 */
export const deploymentArchivesStep: SchemaChange = {
  name: 'deployment archives',
  sql: `
CREATE TABLE platform.deployment_archives (
  deployment_id text PRIMARY KEY REFERENCES platform.deployments (id) ON DELETE CASCADE,
  archive bytea NOT NULL
);
`,
};

/**
 * The secrets of `platform serve`'s deployed apps (docs/production.md, "Secrets"), in the
 * central store so every node reads the same values. Each value is sealed with the service's
 * credential key (AES-256-GCM, bound to its app and name, as connection credentials are): a
 * copy of the database holds only ciphertext. They go with their app (spec 3.5).
 */
export const appSecretsStep: SchemaChange = {
  name: 'app secrets',
  sql: `
CREATE TABLE platform.app_secrets (
  app_id text NOT NULL REFERENCES platform.apps (app_id) ON DELETE CASCADE,
  name text NOT NULL,
  sealed text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (app_id, name)
);
`,
};
