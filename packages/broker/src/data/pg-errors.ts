import { type JsonObject, PlatformError } from '@platform/errors';
import { DatabaseError } from '../db/database.ts';

/**
 * Maps a PostgreSQL error of a data call to the platform error a caller can act on. Values from
 * the row are never copied into the message (PostgreSQL's `detail` can contain them); the
 * constraint and column names are, in `details`.
 */
export function toDataError(error: unknown, table: string): PlatformError {
  if (error instanceof PlatformError) return error;
  const db = DatabaseError.from(error);
  if (!db?.sqlState) {
    return new PlatformError({
      code: 'INTERNAL',
      message: 'The data call failed unexpectedly.',
      cause: error,
    });
  }
  const details: Record<string, string> = { table };
  if (db.constraint) details.constraint = db.constraint;
  if (db.column) details.column = db.column;
  const make = (code: string, message: string) =>
    new PlatformError({ code, message, details: details as JsonObject, cause: error });
  const state = db.sqlState;
  if (state === '42501') {
    return make(
      'PERMISSION_DENIED',
      `Row-level security or grants deny this operation on "${table}".`,
    );
  }
  if (state === '42P01') return make('TABLE_NOT_FOUND', `No table "${table}" in the app database.`);
  if (state === '42703') return make('INVALID_INPUT', `A column does not exist on "${table}".`);
  if (state === '23502') {
    return make(
      'DATA_CONSTRAINT_VIOLATION',
      `Column "${db.column ?? '?'}" of "${table}" cannot be null.`,
    );
  }
  if (state.startsWith('23')) {
    const kind =
      { '23505': 'unique', '23503': 'foreign key', '23514': 'check', '23P01': 'exclusion' }[
        state
      ] ?? 'integrity';
    return make(
      'DATA_CONSTRAINT_VIOLATION',
      `The write breaks the ${kind} constraint ${db.constraint ? `"${db.constraint}" ` : ''}of "${table}".`,
    );
  }
  // Data exceptions: a value of the wrong type or out of range (invalid uuid, bad json, ...).
  if (state.startsWith('22'))
    return make('INVALID_INPUT', `A value does not fit its column in "${table}": ${db.message}`);
  return new PlatformError({
    code: 'INTERNAL',
    message: 'The data call failed unexpectedly.',
    cause: error,
  });
}
