import type { ColumnInfo, TableInfo } from './table-catalog.ts';

/** A statement and its positional parameters. */
export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/** Quotes an identifier for PostgreSQL (`"my ""odd"" name"`). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Equality filters; `null` means `IS NULL`. */
export type Where = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Turns a JSON value into the parameter for `column`. JSON columns get their JSON text (both
 * PGlite and `pg` pass a string through unchanged), so `{ tags: ['a'] }` stays a JSON array
 * instead of becoming a PostgreSQL array.
 */
export function paramFor(column: ColumnInfo, value: unknown): unknown {
  if (value === null) return null;
  if (column.dataType === 'json' || column.dataType === 'jsonb') return JSON.stringify(value);
  // An embedding given as numbers, for a pgvector column: pgvector's text form `[1,2,3]` (the
  // driver would send `{1,2,3}`, which pgvector refuses). A `real[]` embedding (a server
  // without pgvector) takes the array as it is, so an app writes embeddings the same way on both.
  if (column.udtName === 'vector' && Array.isArray(value)) return `[${value.join(',')}]`;
  return value;
}

/** Collects parameters and hands out their `$n` placeholders. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const selectList = (columns: readonly string[]): string => columns.map(quoteIdent).join(', ');

function whereClause(table: TableInfo, where: Where, params: Params): string {
  const parts = Object.entries(where).map(([name, value]) => {
    const column = table.columns.get(name);
    if (!column) throw new TypeError(`Unknown column ${name}`);
    return value === null
      ? `${quoteIdent(name)} IS NULL`
      : `${quoteIdent(name)} = ${params.add(paramFor(column, value))}`;
  });
  return parts.length === 0 ? '' : ` WHERE ${parts.join(' AND ')}`;
}

/** `SELECT <columns> FROM <table> [WHERE ...] ORDER BY id LIMIT n`. Columns must be validated. */
export function selectRows(
  table: TableInfo,
  columns: readonly string[],
  where: Where,
  limit: number,
): Statement {
  const params = new Params();
  const filter = whereClause(table, where, params);
  const text = `SELECT ${selectList(columns)} FROM ${quoteIdent(table.name)}${filter} ORDER BY "id" LIMIT ${params.add(limit)}`;
  return { text, values: params.values };
}

/** `SELECT <columns> FROM <table> WHERE id = $1`. */
export function selectById(table: TableInfo, columns: readonly string[], id: unknown): Statement {
  const params = new Params();
  const text = `SELECT ${selectList(columns)} FROM ${quoteIdent(table.name)} WHERE "id" = ${params.add(paramFor(table.columns.get('id')!, id))}`;
  return { text, values: params.values };
}

/** `INSERT INTO <table> (...) VALUES (...) RETURNING *`; an empty row inserts the defaults. */
export function insertRow(table: TableInfo, row: Readonly<Record<string, unknown>>): Statement {
  const params = new Params();
  const names = Object.keys(row);
  const target = quoteIdent(table.name);
  const returning = selectList([...table.columns.keys()]);
  if (names.length === 0)
    return { text: `INSERT INTO ${target} DEFAULT VALUES RETURNING ${returning}`, values: [] };
  const values = names.map((name) => params.add(paramFor(table.columns.get(name)!, row[name])));
  const text = `INSERT INTO ${target} (${selectList(names)}) VALUES (${values.join(', ')}) RETURNING ${returning}`;
  return { text, values: params.values };
}

/** `UPDATE <table> SET ... WHERE id = $n RETURNING *`. `patch` must not be empty. */
export function updateRow(
  table: TableInfo,
  id: unknown,
  patch: Readonly<Record<string, unknown>>,
): Statement {
  const params = new Params();
  const sets = Object.entries(patch).map(
    ([name, value]) =>
      `${quoteIdent(name)} = ${params.add(paramFor(table.columns.get(name)!, value))}`,
  );
  const key = params.add(paramFor(table.columns.get('id')!, id));
  const returning = selectList([...table.columns.keys()]);
  const text = `UPDATE ${quoteIdent(table.name)} SET ${sets.join(', ')} WHERE "id" = ${key} RETURNING ${returning}`;
  return { text, values: params.values };
}
