import { createHash } from 'node:crypto';
import type { SearchDeclaration } from '@platform/schema/manifest';
import { quoteIdent } from '../data/sql.ts';
import { dbRoles } from '../db/bootstrap.ts';
import type { Queryable } from '../db/database.ts';

/** The schema of the search documents: never reachable through `data`, owned by the owner. */
export const DOCUMENTS_SCHEMA = 'platform_search';

/**
 * The tsvector expression of a full-text search: the declared columns joined by a space, with the
 * declared text search configuration as a constant. `alias` qualifies the columns (`NEW` in the
 * trigger, the table in the backfill).
 */
export function documentExpression(declaration: SearchDeclaration, alias?: string): string {
  const fullText = declaration.fullText;
  if (!fullText) throw new TypeError(`Search ${declaration.name} declares no fullText`);
  const prefix = alias === undefined ? '' : `${alias}.`;
  const text = fullText.columns
    .map((column) => `coalesce(${prefix}${quoteIdent(column)}, '')`)
    .join(` || ' ' || `);
  // The language is one of the manifest's fixed configuration names (letters only).
  return `to_tsvector('${fullText.language}'::regconfig, ${text})`;
}

/**
 * The base name of a full-text search's documents (at most 63 bytes with its suffixes, stable
 * per table and expression, so two searches over the same columns share them).
 */
export function documentsName(declaration: SearchDeclaration): string {
  const hash = createHash('sha256')
    .update(`${declaration.table}\0${documentExpression(declaration)}`)
    .digest('hex')
    .slice(0, 12);
  return `${declaration.table.slice(0, 30)}_${hash}`;
}

/** The set-returning function that answers `(id, score)` for every document matching a tsquery. */
export function matchFunction(declaration: SearchDeclaration): string {
  return `${DOCUMENTS_SCHEMA}.${quoteIdent(`${documentsName(declaration)}_match`)}`;
}

/**
 * Keeps each row's tsvector in a table of its own, `platform_search.<table>_<hash>`, written by
 * triggers on the app table, with a GIN index on it. Why not an expression index on the app
 * table: under row-level security the planner may not evaluate `@@` (not leakproof) before the
 * policy, so it cannot use that index and recomputes `to_tsvector` for every row on every
 * search. Here the match runs as the owner in a `SECURITY DEFINER` function over the indexed
 * documents, and the search joins its ids back to the app table as the caller, so RLS and the
 * filters still decide what is visible, before the candidate cut. No column is added to the
 * app's table, and its migrations (`TRUNCATE`, type changes) are not hindered.
 *
 * Idempotent; the documents are filled from the table when first made, or when the table was
 * made again without them. Runs as the owner.
 */
export async function ensureDocuments(
  tx: Queryable,
  declaration: SearchDeclaration,
  idType: string,
): Promise<void> {
  const base = documentsName(declaration);
  const documents = `${DOCUMENTS_SCHEMA}.${quoteIdent(base)}`;
  const sync = `${DOCUMENTS_SCHEMA}.${quoteIdent(`${base}_sync`)}`;
  const table = `public.${quoteIdent(declaration.table)}`;
  const roles = Object.values(dbRoles).join(', ');
  const rowTrigger = quoteIdent(`ps_${base}`);
  const truncateTrigger = quoteIdent(`ps_${base}_truncate`);
  // Documents made now, or a table (re)made without the trigger that keeps them (a migration
  // dropped and created it again): the documents are filled from the table.
  const { rows } = await tx.query<{ stale: boolean }>(
    `SELECT to_regclass($1) IS NULL
         OR NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = $2::regclass AND tgname = $3)
         AS stale`,
    [`${DOCUMENTS_SCHEMA}."${base.replaceAll('"', '""')}"`, table, `ps_${base}`],
  );
  await tx.query(`CREATE SCHEMA IF NOT EXISTS ${DOCUMENTS_SCHEMA}`);
  await tx.query(`REVOKE ALL ON SCHEMA ${DOCUMENTS_SCHEMA} FROM PUBLIC`);
  await tx.query(`GRANT USAGE ON SCHEMA ${DOCUMENTS_SCHEMA} TO ${roles}`);
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${documents} (id ${idType} PRIMARY KEY, document tsvector NOT NULL)`,
  );
  await tx.query(`REVOKE ALL ON ${documents} FROM PUBLIC`);
  await tx.query(
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${base}_gin`)} ON ${documents} USING gin (document)`,
  );
  // The app's roles write the app table; the documents follow as the owner.
  await tx.query(`CREATE OR REPLACE FUNCTION ${sync}() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE ${documents};
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM ${documents} WHERE id = OLD.id;
  ELSE
    IF TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id THEN
      DELETE FROM ${documents} WHERE id = OLD.id;
    END IF;
    INSERT INTO ${documents} (id, document) VALUES (NEW.id, ${documentExpression(declaration, 'NEW')})
      ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document;
  END IF;
  RETURN NULL;
END $$`);
  await tx.query(`REVOKE ALL ON FUNCTION ${sync}() FROM PUBLIC`);
  await tx.query(`DROP TRIGGER IF EXISTS ${rowTrigger} ON ${table}`);
  await tx.query(
    `CREATE TRIGGER ${rowTrigger} AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${sync}()`,
  );
  await tx.query(`DROP TRIGGER IF EXISTS ${truncateTrigger} ON ${table}`);
  await tx.query(
    `CREATE TRIGGER ${truncateTrigger} AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${sync}()`,
  );
  await tx.query(`CREATE OR REPLACE FUNCTION ${matchFunction(declaration)}(query tsquery)
RETURNS TABLE (id ${idType}, score real)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT d.id, ts_rank_cd(d.document, query) FROM ${documents} AS d WHERE d.document @@ query
$$`);
  await tx.query(`REVOKE ALL ON FUNCTION ${matchFunction(declaration)}(tsquery) FROM PUBLIC`);
  await tx.query(`GRANT EXECUTE ON FUNCTION ${matchFunction(declaration)}(tsquery) TO ${roles}`);
  if (rows[0]?.stale) {
    await tx.query(`TRUNCATE ${documents}`);
    await tx.query(
      `INSERT INTO ${documents} (id, document) SELECT t."id", ${documentExpression(declaration, 't')} FROM ${table} AS t`,
    );
  }
}
