import { Redactor } from '@platform/schema/contract';
import { printable } from './printable.ts';

/** A log level, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured log line of an invocation (or of the broker itself). */
export interface LogRecord {
  /** ISO 8601 time the entry was made. */
  readonly at: string;
  readonly level: LogLevel;
  readonly message: string;
  readonly fields?: Readonly<Record<string, unknown>> | undefined;
  /** The invocation's request id, for correlation with the error a caller saw. */
  readonly requestId: string | undefined;
  /** The Function that logged, or `undefined` for broker lines. */
  readonly functionName: string | undefined;
}

/** Where printed lines go. */
export type LogWriter = (line: string) => void;

/**
 * The log sink of the broker: every structured entry of every invocation is kept in a bounded
 * in-memory ring (for the dashboard and tests) and printed as one line to the terminal. Secret
 * values known to the broker are replaced by `[REDACTED]` before anything is kept or printed,
 * on top of the redaction the SDK does.
 *
 * @example
 * ```ts
 * const logs = new LogSink({ capacity: 1000 });
 * logs.write({ level: 'info', message: 'saved', requestId: 'req_1', functionName: 'saveTodo', at: new Date().toISOString() });
 * logs.list({ requestId: 'req_1' });
 * ```
 */
export class LogSink {
  readonly #capacity: number;
  readonly #ring: LogRecord[] = [];
  readonly #writer: LogWriter | undefined;
  readonly #redactor: Redactor;

  /**
   * `redactor` holds the secret values to redact; pass the broker's shared one so a change of
   * the secrets reaches every place at once. @default a redactor of its own, set by `redact`
   */
  constructor(
    options: { capacity?: number; writer?: LogWriter | undefined; redactor?: Redactor } = {},
  ) {
    this.#capacity = options.capacity ?? 1000;
    this.#writer = options.writer;
    this.#redactor = options.redactor ?? new Redactor();
  }

  /** Values to redact from every later entry (secret values). */
  redact(values: readonly string[]): void {
    this.#redactor.set(values);
  }

  /** Keeps and prints one entry. */
  write(record: LogRecord): void {
    const clean: LogRecord = {
      ...record,
      message: this.#redactor.text(record.message),
      fields: record.fields === undefined ? undefined : this.#redactor.value(record.fields),
    };
    this.#ring.push(clean);
    if (this.#ring.length > this.#capacity) this.#ring.shift();
    this.#writer?.(formatLogLine(clean));
  }

  /** Kept entries, oldest first, optionally filtered. */
  list(filter: { requestId?: string; functionName?: string; limit?: number } = {}): LogRecord[] {
    const matching = this.#ring.filter(
      (r) =>
        (filter.requestId === undefined || r.requestId === filter.requestId) &&
        (filter.functionName === undefined || r.functionName === filter.functionName),
    );
    return filter.limit === undefined ? matching : matching.slice(-filter.limit);
  }
}

/**
 * `12:00:01.123 INFO  [saveTodo] saved {"id":1} req_abc`: always one line, with control
 * characters of the message and fields escaped ({@link printable}).
 */
export function formatLogLine(record: LogRecord): string {
  const time = record.at.slice(11, 23);
  const fields =
    record.fields && Object.keys(record.fields).length > 0
      ? ` ${JSON.stringify(record.fields)}`
      : '';
  const who = record.functionName ? `[${record.functionName}] ` : '';
  const id = record.requestId ? ` ${record.requestId}` : '';
  return printable(
    `${time} ${record.level.toUpperCase().padEnd(5)} ${who}${record.message}${fields}${id}`,
  );
}
