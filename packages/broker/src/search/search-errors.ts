import { PlatformError } from '@platform/errors';
import { DatabaseError } from '../db/database.ts';
import { SearchSetupError } from './search-setup.ts';

/**
 * SQLSTATE classes and codes that are temporary: the same search can succeed when retried.
 * 08 connection, 53 insufficient resources, 57 operator intervention (57014 is a statement
 * timeout, 57P0x a shutdown), 58 system error, 40001/40P01 serialization failure and deadlock,
 * 55P03 lock not available, and the schema-cache failures 42P01 (table vanished) and 42703
 * (column vanished) that a migration in progress causes.
 */
const TEMPORARY_CLASSES = ['08', '53', '57', '58'];
const TEMPORARY_CODES = new Set(['40001', '40P01', '55P03', '42P01', '42703', '42704']);

/** True when a database failure is worth retrying (spec 7.2 `SEARCH_UNAVAILABLE`). */
export function isTemporaryFailure(sqlState: string): boolean {
  return TEMPORARY_CLASSES.includes(sqlState.slice(0, 2)) || TEMPORARY_CODES.has(sqlState);
}

/**
 * Maps a failure of a search call to the error its caller gets:
 *
 * - a `PlatformError` passes through (input rules, size limits);
 * - a declaration that does not fit the database, a temporary database failure (see
 *   {@link isTemporaryFailure}) and a broker that lost its database (worker stopped, connection
 *   refused: errors without a SQLSTATE) become `SEARCH_UNAVAILABLE` (503, retryable);
 * - row-level security or grants refusing the read become `PERMISSION_DENIED`;
 * - a filter value the column cannot take (class 22, e.g. `'abc'` for a uuid) becomes
 *   `SEARCH_INPUT_INVALID`;
 * - anything else is `INTERNAL`.
 */
export function toSearchError(error: unknown, name: string): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof SearchSetupError) {
    return new PlatformError({
      code: 'SEARCH_UNAVAILABLE',
      message: `Search "${name}" cannot run: ${error.message}`,
      details: { search: name, reason: 'schema' },
      cause: error,
    });
  }
  const db = DatabaseError.from(error);
  const state = db?.sqlState;
  if (state === undefined) {
    return new PlatformError({
      code: 'SEARCH_UNAVAILABLE',
      message: `Search "${name}" could not reach the database; try again.`,
      details: { search: name, reason: 'database' },
      cause: error,
    });
  }
  if (isTemporaryFailure(state)) {
    return new PlatformError({
      code: 'SEARCH_UNAVAILABLE',
      message: `Search "${name}" failed temporarily (${state}); try again.`,
      details: {
        search: name,
        reason: state === '57014' ? 'timeout' : 'database',
        sqlState: state,
      },
      cause: error,
    });
  }
  if (state === '42501') {
    return new PlatformError({
      code: 'PERMISSION_DENIED',
      message: `Row-level security or grants deny reading the table of search "${name}".`,
      details: { search: name },
      cause: error,
    });
  }
  if (state.startsWith('22')) {
    // PostgreSQL's message quotes the caller's own value, never a stored one.
    return new PlatformError({
      code: 'SEARCH_INPUT_INVALID',
      message: `A search value does not fit its column: ${db?.message ?? state}`,
      details: { search: name, sqlState: state },
      cause: error,
    });
  }
  return new PlatformError({
    code: 'INTERNAL',
    message: 'The search failed unexpectedly.',
    cause: error,
  });
}
