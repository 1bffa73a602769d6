import { isJsonObject, type JsonObject, PlatformError } from '@platform/errors';
import { findJsonInputProblem } from '@platform/schema';
import type { Where } from './sql.ts';
import type { ColumnInfo, TableInfo } from './table-catalog.ts';

/**
 * Limits of `data.table(name).list()`; the spec fixes none, these are ours (docs/broker.md).
 * Move to `@platform/schema` limits when the contract adopts them.
 */
export const dataLimits = {
  /** Rows returned by `list` without a `limit`. */
  listDefault: 100,
  /** Largest accepted `limit`. */
  listMax: 1000,
} as const;

function invalid(message: string, details?: JsonObject): PlatformError {
  return new PlatformError({ code: 'INVALID_INPUT', message, details });
}

function checkColumn(table: TableInfo, name: string, where: string): void {
  if (!table.columns.has(name)) {
    throw invalid(`Table "${table.name}" has no column "${name}" (in ${where}).`, {
      table: table.name,
      column: name,
    });
  }
}

/** The columns to return: every column when `select` is omitted, else the validated list. */
export function readSelect(table: TableInfo, select: unknown): string[] {
  if (select === undefined || select === null) return [...table.columns.keys()];
  if (
    !Array.isArray(select) ||
    select.length === 0 ||
    !select.every((c) => typeof c === 'string')
  ) {
    throw invalid('`select` must be a nonempty array of column names.');
  }
  for (const name of select) checkColumn(table, name, 'select');
  return [...new Set(select as string[])];
}

/** Equality filters on existing columns with scalar values. */
export function readWhere(table: TableInfo, where: unknown): Where {
  if (where === undefined || where === null) return {};
  if (!isJsonObject(where)) throw invalid('`where` must be an object of column: value pairs.');
  const result: Record<string, string | number | boolean | null> = {};
  for (const [name, value] of Object.entries(where)) {
    checkColumn(table, name, 'where');
    checkScalar(name, value, 'where');
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      throw invalid(
        `\`where.${name}\` must be a string, number, boolean or null (equality only).`,
        {
          column: name,
        },
      );
    }
    result[name] = value as string | number | boolean | null;
  }
  return result;
}

/** The row limit of `list`. */
export function readLimit(limit: unknown): number {
  if (limit === undefined || limit === null) return dataLimits.listDefault;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > dataLimits.listMax
  ) {
    throw invalid(`\`limit\` must be an integer from 1 to ${dataLimits.listMax}.`, {
      limit: String(limit),
    });
  }
  return limit;
}

/** A row for `create` or a patch for `updateById`: a JSON object of existing columns. */
export function readValues(
  table: TableInfo,
  values: unknown,
  what: 'row' | 'patch',
): Record<string, unknown> {
  if (!isJsonObject(values)) throw invalid(`The ${what} must be a JSON object.`);
  for (const [name, value] of Object.entries(values)) {
    checkColumn(table, name, what);
    checkColumnValue(table.columns.get(name)!, value, what);
  }
  if (what === 'patch') {
    if (Object.keys(values).length === 0)
      throw invalid('The patch must change at least one column.');
    if (Object.hasOwn(values, 'id')) throw invalid('The patch cannot change `id`.');
  }
  return { ...values };
}

/**
 * A value fits its column's kind: JSON columns take any JSON value, array columns an array (or
 * `null`), a pgvector column an array of numbers too (as a `real[]` embedding does where the
 * server has no pgvector) besides pgvector's text `[1,2,3]`, every other column a string, number, boolean or `null`. Without this check the
 * database driver turns an object into the text `[object Object]` and an array into `1,2,3`.
 */
function checkColumnValue(column: ColumnInfo, value: unknown, what: 'row' | 'patch'): void {
  checkScalar(column.name, value, what);
  if (column.dataType === 'json' || column.dataType === 'jsonb') return;
  if (column.udtName === 'vector' && Array.isArray(value)) return;
  if (column.dataType === 'ARRAY') {
    if (value === null || Array.isArray(value)) return;
    throw invalid(`\`${column.name}\` is an array column: give an array or null.`, {
      column: column.name,
    });
  }
  if (typeof value === 'object' && value !== null) {
    throw invalid(
      `\`${column.name}\` is a ${column.dataType} column: give a string, number, boolean or null, not ${Array.isArray(value) ? 'an array' : 'an object'}.`,
      { column: column.name, dataType: column.dataType },
    );
  }
}

/** Strings without NUL (PostgreSQL text cannot hold one) and finite numbers, at any depth. */
function checkScalar(name: string, value: unknown, where: string): void {
  const problem = findJsonInputProblem(value);
  if (problem) {
    throw invalid(`The value of \`${name}\` (in ${where}) is refused: ${problem.message}`, {
      column: name,
    });
  }
}

/** A row id: a nonempty string without NUL or a safe integer. */
export function readId(id: unknown): string | number {
  if (
    (typeof id === 'string' && id.length > 0 && !id.includes('\u0000')) ||
    (typeof id === 'number' && Number.isSafeInteger(id))
  )
    return id;
  throw invalid('`id` must be a nonempty string (without NUL characters) or an integer.');
}
