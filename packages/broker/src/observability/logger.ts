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
    options.destination ?? standardOutput(),
  );
}

/**
 * How many bytes of log lines wait in memory for a reader of standard output that fell behind,
 * about 16,000 request lines; past it, lines are dropped and counted.
 */
export const LOG_BUFFER_BYTES = 4 * 1024 * 1024;

/** A log destination on standard output (see {@link standardOutput}). */
export interface LogOutput extends DestinationStream {
  /**
   * Gives the reader {@link EXIT_FLUSH_MS} more to take the lines in memory, then stops
   * retrying, so a stuck reader cannot keep a stopping service alive.
   */
  stop(): void;
}

/** How long the exit waits for standard output to take the lines still in memory. */
const EXIT_FLUSH_MS = 2_000;

/**
 * Standard output as a log destination that never stops the service. A synchronous write to a
 * pipe whose reader stopped reading (a log shipper that hangs, a parent that never reads) blocks
 * the event loop once the pipe's 64 KiB are full: every request, `healthz` included, then waits
 * for the reader. Here lines wait in memory up to `maxBytes`; past it they are dropped, and the
 * next line that fits is preceded by one warning with the number dropped so far. At exit what
 * is still in memory is written, waiting at most {@link EXIT_FLUSH_MS} for the reader.
 *
 * @example
 * ```ts
 * const log = createServiceLogger({ level: 'info', destination: standardOutput() });
 * ```
 */
export function standardOutput(fd = 1, maxBytes = LOG_BUFFER_BYTES): LogOutput {
  let exitingUntil = Number.POSITIVE_INFINITY;
  const stream = pino.destination({
    fd,
    sync: false,
    maxLength: maxBytes,
    // Async writes retry a full pipe later without blocking; the exit's flush gives up in time.
    retryEAGAIN: () => Date.now() < exitingUntil,
  });
  let dropped = 0;
  let reported = 0;
  let lastDropped = false;
  stream.on('drop', () => {
    lastDropped = true;
  });
  // A failing write (the reader closed the pipe) must not end the service.
  stream.on('error', () => undefined);
  const stop = () => {
    exitingUntil = Math.min(exitingUntil, Date.now() + EXIT_FLUSH_MS);
  };
  process.once('exit', () => {
    stop();
    try {
      stream.flushSync();
    } catch {
      // The reader is gone or stayed full: the lines in memory are lost with the process.
    }
  });
  const write = (line: string): boolean => {
    lastDropped = false;
    stream.write(line);
    return !lastDropped;
  };
  return {
    stop,
    write(line: string) {
      if (dropped > reported) {
        const notice = `${JSON.stringify({
          level: 'warn',
          time: new Date().toISOString(),
          dropped,
          msg: 'log lines dropped: standard output was not read fast enough',
        })}\n`;
        if (write(notice)) reported = dropped;
      }
      if (!write(line)) dropped += 1;
    },
  };
}
