import { PlatformError } from '@platform/errors';

/**
 * PostgreSQL's SQLSTATEs of a server that is going or gone: class 08 (connection exception),
 * and 57P01-57P03 (shut down by an administrator or a crash, or not accepting connections yet).
 */
const LOST_STATE = /^(08...|57P0[123])$/;

/** Node's socket errors of a server that is not there (no one at its socket file or port). */
const LOST_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT']);

/** node-postgres's words for a connection that ended under its caller. */
const LOST_MESSAGE = /^(Connection terminated|Client has encountered a connection error)/;

/**
 * `error` as `DATABASE_UNAVAILABLE` (503, retryable) when it says the database server went away
 * (a restart or a failover, which the caller may retry), else `error` unchanged. Called only on
 * failures that came through the database's own connection (a query, or a transaction's work,
 * whose other parts wrap their own socket errors in codes of their own), so a bare socket error
 * names that server.
 */
export function unavailableIfLost(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof PlatformError) return error;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  const lost =
    (typeof code === 'string' && LOST_STATE.test(code)) ||
    (typeof code === 'string' && LOST_SOCKET.has(code) && syscall !== undefined) ||
    LOST_MESSAGE.test(error.message);
  if (!lost) return error;
  return new PlatformError({
    code: 'DATABASE_UNAVAILABLE',
    message:
      'The database server could not be reached (it is restarting or failing over); try again shortly.',
    cause: error,
  });
}
