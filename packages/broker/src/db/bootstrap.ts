import type { SchemaChange } from './platform-schema.ts';

/** The database roles a data call runs as (`SET LOCAL ROLE`), one per kind of caller. */
export const dbRoles = {
  /** A signed-in user (or an app access token acting as the owner). */
  user: 'authenticated',
  /** A visitor of a public app without a session. */
  anonymous: 'anon',
  /** A system Function (cron, queue consumer, integration, `platform invoke`). */
  system: 'platform_system',
} as const;

const roles = Object.values(dbRoles);
const roleList = roles.join(', ');

/**
 * The SQL every app database gets before its own migrations: version 1 of the platform schema
 * (see `platform-schema.ts`), run once. Every statement is idempotent, so on a data directory
 * made before the schema had versions it adopts what is there. It creates:
 *
 * - the roles `anon`, `authenticated` and `platform_system` (NOLOGIN; the broker switches to
 *   them with `SET LOCAL ROLE` for each data call, so row-level security applies); roles belong
 *   to the whole PostgreSQL cluster, so a role another database created meanwhile is fine;
 * - schema `auth` with `auth.jwt()`, `auth.uid()` (uuid, null for anonymous and system
 *   callers), `auth.role()`, `auth.is_system()` and `auth.connection_id()`, all reading
 *   `current_setting('request.jwt.claims', true)` (a later step, `claim-settings.ts`, makes
 *   all but `auth.jwt()` read one setting per claim);
 * - default privileges so tables the app's migrations create in `public` are readable by every
 *   role and writable by `authenticated` and `platform_system` (RLS policies then decide rows);
 * - schema `platform` for the broker's own tables, not granted to any app role, and in it
 *   `platform.migrations`, the record of the app's own migrations.
 */
export const bootstrapSql = `
DO $roles$
DECLARE r text;
BEGIN
  FOREACH r IN ARRAY ARRAY[${roles.map((r) => `'${r}'`).join(', ')}] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT', r);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
      END;
    END IF;
  END LOOP;
END
$roles$;

-- pgvector for data.search (bundled with PGlite; on PostgreSQL only when installed and the
-- broker may create it). A search that needs it and lacks it says so when it is prepared.
DO $vector$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
  END IF;
EXCEPTION WHEN insufficient_privilege THEN NULL;
END
$vector$;

CREATE SCHEMA IF NOT EXISTS auth;
CREATE SCHEMA IF NOT EXISTS platform;

CREATE OR REPLACE FUNCTION auth.jwt() RETURNS jsonb
  LANGUAGE sql STABLE
  AS $$ SELECT coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb $$;

CREATE OR REPLACE FUNCTION auth.uid() RETURNS uuid
  LANGUAGE sql STABLE
  AS $$ SELECT nullif(auth.jwt() ->> 'sub', '')::uuid $$;

CREATE OR REPLACE FUNCTION auth.role() RETURNS text
  LANGUAGE sql STABLE
  AS $$ SELECT coalesce(auth.jwt() ->> 'role', 'anon') $$;

CREATE OR REPLACE FUNCTION auth.is_system() RETURNS boolean
  LANGUAGE sql STABLE
  AS $$ SELECT coalesce(auth.jwt() ->> 'role' = 'system', false) $$;

CREATE OR REPLACE FUNCTION auth.connection_id() RETURNS text
  LANGUAGE sql STABLE
  AS $$ SELECT nullif(auth.jwt() ->> 'connection_id', '') $$;

GRANT USAGE ON SCHEMA auth TO ${roleList};
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA auth TO ${roleList};
GRANT USAGE ON SCHEMA public TO ${roleList};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO ${roleList};
ALTER DEFAULT PRIVILEGES IN SCHEMA public
  GRANT INSERT, UPDATE, DELETE ON TABLES TO ${dbRoles.user}, ${dbRoles.system};
ALTER DEFAULT PRIVILEGES IN SCHEMA public
  GRANT USAGE, SELECT ON SEQUENCES TO ${dbRoles.user}, ${dbRoles.system};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO ${roleList};

CREATE TABLE IF NOT EXISTS platform.migrations (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
`;

/** The bootstrap as the first step of the platform schema. */
export const bootstrapStep: SchemaChange = { name: 'bootstrap', sql: bootstrapSql };
