import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * The broker's file tables, in the internal `platform` schema that no app role can reach:
 * `files` holds the current metadata and generation of each file, `file_generations` one row per
 * content generation (every upload and replace, even with identical bytes, adds one; delegated
 * job grants pin a generation). Idempotent: it adopts the tables of a data directory made
 * before the platform schema had versions.
 */
export const fileSchemaSql = `
CREATE TABLE IF NOT EXISTS platform.files (
  id text PRIMARY KEY,
  owner_id uuid,
  name text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  generation integer NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS platform.file_generations (
  file_id text NOT NULL,
  generation integer NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (file_id, generation)
);
`;

/** The file tables as a step of the platform schema (`app/platform-schema.ts` numbers it). */
export const fileTablesStep: SchemaChange = { name: 'files', sql: fileSchemaSql };

/**
 * Files whose bytes may be in the store without a `files` row: an upload between storing its
 * bytes and committing its row, and a removed file whose bytes are not yet deleted (the store
 * was down). The sweep deletes the bytes of entries older than its bound and no row, so it never
 * touches bytes it has no record of (a folder or bucket opened with another database).
 */
export const filePendingStep: SchemaChange = {
  name: 'file pending bytes',
  sql: `
CREATE TABLE IF NOT EXISTS platform.file_pending (
  file_id text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
};

/**
 * Generations whose bytes something outside the file rows still needs (a backup that lists
 * them): removing or replacing a file, and the sweep, keep the bytes of a held generation; the
 * holder's release frees those no other holder keeps.
 */
export const fileHoldsStep: SchemaChange = {
  name: 'file holds',
  sql: `
CREATE TABLE IF NOT EXISTS platform.file_holds (
  holder text NOT NULL,
  file_id text NOT NULL,
  generation integer NOT NULL,
  PRIMARY KEY (file_id, generation, holder)
);
CREATE INDEX IF NOT EXISTS file_holds_holder ON platform.file_holds (holder);
`,
};
