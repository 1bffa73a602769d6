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

/**
 * One request the broker answered, as the console's Logs show it: the path without its query
 * (a query may carry a key or a link's secret), never headers or bodies.
 */
export interface RequestLine {
  /** ISO 8601 time the answer was sent. */
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
  /** The Function the request called, when it called one by name. */
  readonly functionName: string | undefined;
}

/** A kept line as the console lists and streams it: a log entry or a request's line. */
export type KeptLine =
  | ({ readonly kind: 'log' } & LogRecord)
  | ({ readonly kind: 'request' } & RequestLine);

/** What {@link LogSink.lines} filters by; every filter given must match. */
export interface LineFilter {
  readonly requestId?: string | undefined;
  readonly functionName?: string | undefined;
  /** The lowest level of log entries; request lines count as `info`, `warn` (4xx), `error` (5xx). */
  readonly level?: LogLevel | undefined;
  /** Text the message, fields or path contain (case-insensitive). */
  readonly text?: string | undefined;
  /** Lines at or after this instant (ISO 8601). */
  readonly from?: string | undefined;
  /** Lines at or before this instant (ISO 8601). */
  readonly to?: string | undefined;
  /** The newest this many. */
  readonly limit?: number | undefined;
}

const levelRank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** The level a request line counts as: a server failure is an error, a refusal a warning. */
export const requestLevel = (status: number): LogLevel =>
  status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';

/** Whether a kept line passes `filter` (all but its `limit`). */
export function lineMatches(line: KeptLine, filter: LineFilter): boolean {
  if (filter.requestId && line.requestId !== filter.requestId) return false;
  if (filter.functionName && line.functionName !== filter.functionName) return false;
  const level = line.kind === 'log' ? line.level : requestLevel(line.status);
  if (filter.level && levelRank[level] < levelRank[filter.level]) return false;
  if (filter.from && line.at < filter.from) return false;
  if (filter.to && line.at > filter.to) return false;
  if (filter.text) {
    const haystack =
      line.kind === 'log'
        ? `${line.message} ${line.fields === undefined ? '' : JSON.stringify(line.fields)}`
        : `${line.method} ${line.path} ${line.status}`;
    if (!haystack.toLowerCase().includes(filter.text.toLowerCase())) return false;
  }
  return true;
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
  readonly #requests: RequestLine[] = [];
  readonly #listeners = new Set<(line: KeptLine) => void>();
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
    this.#tell({ kind: 'log', ...clean });
  }

  /**
   * Keeps one request's line (not printed: the terminal shows Functions' entries, not every
   * request), in a ring of its own with the same capacity as the entries'. Its path is
   * redacted like a message.
   */
  request(line: RequestLine): void {
    const clean: RequestLine = { ...line, path: this.#redactor.text(line.path) };
    this.#requests.push(clean);
    if (this.#requests.length > this.#capacity) this.#requests.shift();
    this.#tell({ kind: 'request', ...clean });
  }

  /** Kept entries and request lines together, oldest first, filtered (the console's Logs). */
  lines(filter: LineFilter = {}): KeptLine[] {
    const all: KeptLine[] = [
      ...this.#ring.map((r) => ({ kind: 'log' as const, ...r })),
      ...this.#requests.map((r) => ({ kind: 'request' as const, ...r })),
    ]
      .filter((line) => lineMatches(line, filter))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    return filter.limit === undefined ? all : all.slice(-filter.limit);
  }

  /** How many entries and how many request lines each ring keeps at most. */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * Calls `listener` with every line kept from now on (already redacted), until the returned
   * function is called: the console's live tail.
   */
  subscribe(listener: (line: KeptLine) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(line: KeptLine): void {
    for (const listener of this.#listeners) {
      try {
        listener(line);
      } catch {
        // A listener's failure (a closed stream) must not stop the Function that logged.
      }
    }
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
