import pino, { type DestinationStream, type Logger } from 'pino';

/** A JSON logger of the service: one object per line on standard output. */
export type ServiceLogger = Logger;

/**
 * Fields that may carry a secret wherever they appear in a log object: pino replaces their
 * values before the line is written, so a careless `log.info({ headers })` cannot leak them.
 */
const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'password',
  'token',
  'key',
  'secret',
  'databaseUrl',
  'apiKey',
  '*.authorization',
  '*.cookie',
  '*.password',
  '*.token',
  '*.key',
  '*.secret',
  '*.databaseUrl',
  '*.apiKey',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
];

/**
 * A pino logger writing JSON lines (to `destination`, standard output by default), with the
 * secret-bearing fields redacted and the time as an ISO string so lines sort and read alike.
 *
 * @example
 * ```ts
 * const log = createServiceLogger({ level: 'info' });
 * log.info({ host: 'todo.example.com' }, 'started');
 * ```
 */
export function createServiceLogger(options: {
  level: string;
  destination?: DestinationStream;
}): ServiceLogger {
  return pino(
    {
      level: options.level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ fd: 1, sync: true }),
  );
}
