import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * Account deletions (spec 3.5), beside the accounts (the central store, or a broker's own
 * database when it runs alone): one row per deleted account, kept as its audit record with the
 * old address dropped once the confirmation email is sent, and one row per app of the
 * organisation whose part is done or still to do, so that a broker stopped half-way resumes.
 */
export const accountDeletionsStep: SchemaChange = {
  name: 'account-deletions',
  sql: `
CREATE TABLE platform.account_deletions (
  id text PRIMARY KEY,
  account_id uuid NOT NULL UNIQUE,
  notify_email text,
  notify_app_id text NOT NULL,
  whole_organisation boolean NOT NULL,
  requested_at timestamptz NOT NULL,
  central_done_at timestamptz,
  finished_at timestamptz,
  lease_until timestamptz
);
CREATE TABLE platform.account_deletion_apps (
  deletion_id text NOT NULL REFERENCES platform.account_deletions (id),
  app_id text NOT NULL,
  done_at timestamptz,
  PRIMARY KEY (deletion_id, app_id)
);
`,
};

/**
 * A lease on each app's part of a deletion: of the brokers serving one app (`platform serve`
 * nodes on one PostgreSQL), one at a time wipes the app or removes the person from it, and
 * sends the confirmation email when the app is the one the deletion was asked from.
 */
export const accountDeletionAppLeaseStep: SchemaChange = {
  name: 'account-deletion app lease',
  sql: `
ALTER TABLE platform.account_deletion_apps ADD COLUMN lease_holder text;
ALTER TABLE platform.account_deletion_apps ADD COLUMN lease_until timestamptz;
`,
};
