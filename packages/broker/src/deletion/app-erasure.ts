import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/database.ts';
import type { ErasedPerson, FeatureErasure } from '../feature/broker-feature.ts';

// Every object the app's migrations made in `public` (not those an extension owns), dropped.
const dropPublicObjects = `
DO $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT c.oid::regclass AS name, c.relkind FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('DROP %s IF EXISTS %s CASCADE',
      CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
        WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, r.name);
  END LOOP;
  FOR r IN
    SELECT p.oid::regprocedure AS name FROM pg_proc p
    JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public'
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('DROP ROUTINE IF EXISTS %s CASCADE', r.name);
  END LOOP;
  FOR r IN
    SELECT c.oid::regclass AS name FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'S'
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('DROP SEQUENCE IF EXISTS %s CASCADE', r.name);
  END LOOP;
  FOR r IN
    SELECT t.oid::regtype AS name FROM pg_type t
    JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'c', 'r')
      AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.reltype = t.oid)
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('DROP TYPE IF EXISTS %s CASCADE', r.name);
  END LOOP;
END $$`;

/**
 * Deletes an app with its owner's account (spec 3.5): every table, view, routine, sequence and
 * type its migrations made, the platform's records of it (files, Functions' jobs and cron,
 * email history, push subscriptions, sessions, access tokens, search documents, the record of
 * applied migrations), and on disk its stored files, Function bundles and secrets. The app
 * folder's own files (source, migrations, `platform.yaml`) are the developer's and stay; a
 * later start begins the app anew from them. Idempotent, so a deletion that stopped half-way
 * runs it again.
 */
export async function wipeApp(
  db: Database,
  stateDir: string,
  erasures: readonly FeatureErasure[],
): Promise<void> {
  // The schema's own record stays, and the accounts side, which the features' erasures of the
  // accounts' database handle even where it shares the app's database.
  const kept = ['schema_versions', ...erasures.flatMap((erasure) => erasure.keptByAppWipe ?? [])];
  await db.transaction(async (tx) => {
    await tx.exec(dropPublicObjects);
    const { rows } = await tx.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
       WHERE (schemaname = 'platform' AND NOT (tablename = ANY($1)))
          OR schemaname = 'platform_search'`,
      [kept],
    );
    if (rows.length > 0) await tx.exec(`TRUNCATE ${rows.map((r) => r.name).join(', ')} CASCADE`);
  });
  for (const path of ['files', 'functions', 'secrets.json']) {
    await rm(join(stateDir, path), { recursive: true, force: true });
  }
}

/**
 * Removes a person from an app that stays (it belongs to an organisation with other members):
 * each feature erases its rows of the person in the app's database (sessions, push
 * subscriptions, captured email). Rows of the app's own tables are the app's data and stay.
 */
export async function removePersonFromApp(
  db: Database,
  person: ErasedPerson,
  erasures: readonly FeatureErasure[],
): Promise<void> {
  await db.transaction(async (tx) => {
    for (const erasure of erasures) await erasure.appPerson?.(tx, person);
  });
}
