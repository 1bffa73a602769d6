import { PlatformError } from '@platform/errors';
import type { Queryable } from '../db/database.ts';

/** One column of an app table, as `information_schema` describes it. */
export interface ColumnInfo {
  readonly name: string;
  /** `information_schema.columns.data_type`, for example `uuid`, `jsonb`, `ARRAY`. */
  readonly dataType: string;
  /**
   * `information_schema.columns.udt_name`: the type's own name, `vector` for a pgvector column
   * (whose `dataType` is `USER-DEFINED`). @default the type is told by `dataType` alone
   */
  readonly udtName?: string | undefined;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
}

/** An app table reachable through `data`: in schema `public`, primary key `id`. */
export interface TableInfo {
  readonly name: string;
  /** Columns in declaration order. */
  readonly columns: ReadonlyMap<string, ColumnInfo>;
}

/**
 * The columns of the app's tables, read from `information_schema` as the database owner and
 * cached until {@link TableCatalog.invalidate} (after migrations run again). Only base tables in
 * `public` whose primary key is exactly `id` are reachable, as spec 2.4 says.
 */
export class TableCatalog {
  readonly #db: Queryable;
  readonly #cache = new Map<string, Promise<TableInfo | undefined>>();

  constructor(db: Queryable) {
    this.#db = db;
  }

  /** Forgets every cached table (call after migrations). */
  invalidate(): void {
    this.#cache.clear();
  }

  /**
   * The table, or a `TABLE_NOT_FOUND` error when it does not exist, is not in `public` or has no
   * primary key `id`.
   */
  async get(name: string): Promise<TableInfo> {
    let pending = this.#cache.get(name);
    if (!pending) {
      pending = this.#load(name);
      this.#cache.set(name, pending);
      // A failed lookup (database down) must not be cached.
      pending.catch(() => this.#cache.delete(name));
    }
    const table = await pending;
    if (!table) {
      this.#cache.delete(name);
      throw new PlatformError({
        code: 'TABLE_NOT_FOUND',
        message: `No table "${name}" with primary key "id" in the app database.`,
        details: { table: name },
      });
    }
    return table;
  }

  async #load(name: string): Promise<TableInfo | undefined> {
    const { rows } = await this.#db.query<{
      column_name: string;
      data_type: string;
      udt_name: string;
      is_nullable: string;
      column_default: string | null;
      is_identity: string;
      is_generated: string;
      pk: string[] | null;
    }>(
      `SELECT c.column_name, c.data_type, c.udt_name::text, c.is_nullable, c.column_default, c.is_identity, c.is_generated,
              (SELECT array_agg(k.column_name::text)
                 FROM information_schema.table_constraints tc
                 JOIN information_schema.key_column_usage k
                   ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema
                WHERE tc.table_schema = 'public' AND tc.table_name = t.table_name
                  AND tc.constraint_type = 'PRIMARY KEY') AS pk
         FROM information_schema.tables t
         JOIN information_schema.columns c
           ON c.table_schema = t.table_schema AND c.table_name = t.table_name
        WHERE t.table_schema = 'public' AND t.table_name = $1 AND t.table_type = 'BASE TABLE'
        ORDER BY c.ordinal_position`,
      [name],
    );
    const pk = rows[0]?.pk;
    if (pk?.length !== 1 || pk[0] !== 'id') return undefined;
    const columns = new Map<string, ColumnInfo>();
    for (const row of rows) {
      columns.set(row.column_name, {
        name: row.column_name,
        dataType: row.data_type,
        udtName: row.udt_name,
        nullable: row.is_nullable === 'YES',
        hasDefault:
          row.column_default !== null || row.is_identity === 'YES' || row.is_generated === 'ALWAYS',
      });
    }
    return { name, columns };
  }
}
