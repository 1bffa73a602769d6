/** Lines kept from stderr to explain a failed start. */
const STDERR_TAIL = 20;

/** The longest stderr line kept for that explanation, in characters. */
const STDERR_TAIL_LINE = 1000;

/**
 * The last lines a Function process printed to stderr, each cut to a readable length. A failed
 * start quotes them, since Deno explains there why it could not load or bind; the cap keeps a
 * process that prints without end from growing the broker or the error message.
 */
export class StderrTail {
  readonly #lines: string[] = [];

  /** The kept lines, oldest first. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** Keeps `line`, dropping the oldest kept line past the cap. */
  push(line: string): void {
    this.#lines.push(
      line.length > STDERR_TAIL_LINE ? `${line.slice(0, STDERR_TAIL_LINE)} …` : line,
    );
    if (this.#lines.length > STDERR_TAIL) this.#lines.shift();
  }

  /** Forgets every kept line, so a new start reports only what it printed itself. */
  clear(): void {
    this.#lines.length = 0;
  }
}
