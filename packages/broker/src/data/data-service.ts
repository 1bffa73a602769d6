import { PlatformError } from '@platform/errors';
import { type Database, DatabaseError, type Queryable, type Transaction } from '../db/database.ts';
import { runAs } from '../db/run-as.ts';
import type { Caller } from '../kernel/caller.ts';
import { readId, readLimit, readSelect, readValues, readWhere } from './data-input.ts';
import { toDataError } from './pg-errors.ts';
import { callRpc } from './rpc.ts';
import { insertRow, selectById, selectRows, updateRow } from './sql.ts';
import { TableCatalog, type TableInfo } from './table-catalog.ts';

/** A row as JSON-ready plain data. */
export type Row = Record<string, unknown>;

/** Options of {@link DataService.list}. */
export interface ListOptions {
  /** Equality filters; `null` means `IS NULL`. */
  readonly where?: unknown;
  /** At most this many rows (1 to 1000, default 100), ordered by `id`. */
  readonly limit?: unknown;
  /** Columns to return (default all). */
  readonly select?: unknown;
}

/**
 * The `data` member of the handler context, served for real: every call is validated against
 * the table's real columns, built as parameterised SQL with quoted identifiers, and run in its
 * own transaction as the caller (role and `request.jwt.claims`), so the app's RLS policies
 * decide which rows exist. Failures are `PlatformError`s; a failed write changes nothing.
 *
 * @example
 * ```ts
 * const data = new DataService(db);
 * const todos = await data.list(caller, 'todos', { where: { done: false }, limit: 20 });
 * ```
 */
export class DataService {
  readonly #db: Database;
  /** Column cache; invalidate after migrations. */
  readonly catalog: TableCatalog;

  constructor(db: Database) {
    this.#db = db;
    this.catalog = new TableCatalog(db);
  }

  /**
   * The app database as its owner, where row-level security does not apply: only for the
   * console's data browser, which the control plane keeps to the owner and developer.
   */
  get owner(): Queryable {
    return this.#db;
  }

  /** Rows of `table` visible to `caller`. */
  list(caller: Caller, table: string, options: ListOptions = {}): Promise<Row[]> {
    return this.#run(caller, table, async (info, tx) => {
      const statement = selectRows(
        info,
        readSelect(info, options.select),
        readWhere(info, options.where),
        readLimit(options.limit),
      );
      return (await tx.query<Row>(statement.text, statement.values)).rows;
    });
  }

  /** The row with this `id`, or `null` when it does not exist or RLS hides it. */
  getById(
    caller: Caller,
    table: string,
    id: unknown,
    options: { select?: unknown } = {},
  ): Promise<Row | null> {
    return this.#run(caller, table, async (info, tx) => {
      const statement = selectById(info, readSelect(info, options.select), readId(id));
      return (await tx.query<Row>(statement.text, statement.values)).rows[0] ?? null;
    });
  }

  /** Inserts `row` and returns it as stored (defaults filled in). Needs a user or system caller. */
  async create(caller: Caller, table: string, row: unknown): Promise<Row> {
    requireWriter(caller);
    return this.#run(caller, table, async (info, tx) => {
      const statement = insertRow(info, readValues(info, row, 'row'));
      const created = (await tx.query<Row>(statement.text, statement.values)).rows[0];
      if (!created)
        throw new PlatformError({
          code: 'PERMISSION_DENIED',
          message: `The row was not created in "${table}".`,
        });
      return created;
    });
  }

  /**
   * Changes the columns of `patch` on the row with this `id` and returns the updated row;
   * `ROW_NOT_FOUND` when no such row is visible to the caller.
   */
  async updateById(caller: Caller, table: string, id: unknown, patch: unknown): Promise<Row> {
    requireWriter(caller);
    return this.#run(caller, table, async (info, tx) => {
      const statement = updateRow(info, readId(id), readValues(info, patch, 'patch'));
      const updated = (await tx.query<Row>(statement.text, statement.values)).rows[0];
      if (!updated) {
        throw new PlatformError({
          code: 'ROW_NOT_FOUND',
          message: `No row with id ${JSON.stringify(id)} in "${table}" is visible to the caller.`,
          details: { table, id: String(id) },
        });
      }
      return updated;
    });
  }

  /** `POST /rest/v1/rpc/<name>`: a database function of the public schema, as `caller`. */
  rpc(caller: Caller, name: string, args: unknown): Promise<unknown> {
    return callRpc(this.#db, caller, name, args);
  }

  async #run<T>(
    caller: Caller,
    table: string,
    fn: (info: TableInfo, tx: Transaction) => Promise<T>,
  ): Promise<T> {
    if (typeof table !== 'string' || table.length === 0) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: 'The table name must be a nonempty string.',
      });
    }
    try {
      const info = await this.catalog.get(table);
      return await runAs(this.#db, caller, (tx) => fn(info, tx));
    } catch (error) {
      // A table or column that vanished under us means the cached columns are stale.
      const state = DatabaseError.from(error)?.sqlState;
      if (state === '42P01' || state === '42703') this.catalog.invalidate();
      throw toDataError(error, table);
    }
  }
}

// Spec 5.1.5: in public apps, data writes require a user.
function requireWriter(caller: Caller): void {
  if (caller.kind === 'anonymous') {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message: 'Writing data needs a signed-in user.',
    });
  }
}
