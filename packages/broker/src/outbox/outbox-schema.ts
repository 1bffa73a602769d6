import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * The captured emails of `Outbox` (`outbox.ts`), in the internal `platform` schema, as a
 * step of the platform schema (`app/platform-schema.ts` numbers it). Idempotent: it adopts the
 * table of a data directory made before the platform schema had versions.
 */
export const outboxTableStep: SchemaChange = {
  name: 'outbox',
  sql: `
CREATE TABLE IF NOT EXISTS platform.outbox (
  id text PRIMARY KEY,
  from_alias text NOT NULL,
  recipients jsonb NOT NULL,
  subject text NOT NULL,
  text_body text,
  html_body text,
  reply_to text,
  request_id text,
  function_name text,
  created_at timestamptz NOT NULL DEFAULT now()
);`,
};
