import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** One journal file: its lines are the rows appended while it was the current one. */
export interface JournalSegment {
  readonly path: string;
  /** The rows that reached the file whole (a line cut short by a crash was never acknowledged). */
  readonly rows: readonly unknown[];
}

const SEGMENT = /^(\d+)\.jsonl$/;

/**
 * An append-only journal of rows on their way to a database table, one JSON line per row, in
 * numbered segment files of one folder. {@link AuditJournal.append} is one `write` of one line:
 * once it returns, the row is in the operating system's page cache, where a process crash
 * cannot take it (the embedded database's own commits are no more durable: PGlite runs with
 * `fsync` off). {@link AuditJournal.seal} starts a new segment and hands over the current one;
 * its owner deletes it with {@link AuditJournal.drop} once its rows are committed. The folder
 * belongs to one process at a time, the one that holds the lock of the database beside it.
 */
export class AuditJournal {
  readonly #dir: string;
  #number: number;
  #fd: number;
  #rows: unknown[] = [];
  #closed = false;

  private constructor(dir: string, number: number) {
    this.#dir = dir;
    this.#number = number;
    this.#fd = openSync(this.#path(number), 'a', 0o600);
  }

  /**
   * Opens the journal in `dir` (made, owner only, when missing) and answers it with the
   * segments a previous process left, oldest first, for the caller to commit and drop.
   */
  static async open(dir: string): Promise<{ journal: AuditJournal; left: JournalSegment[] }> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const numbers = readdirSync(dir)
      .map((name) => SEGMENT.exec(name)?.[1])
      .filter((found): found is string => found !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const left = numbers.map((number) => {
      const path = join(dir, `${number}.jsonl`);
      return { path, rows: readRows(readFileSync(path, 'utf8')) };
    });
    return { journal: new AuditJournal(dir, (numbers.at(-1) ?? 0) + 1), left };
  }

  /** How many rows the current segment holds. */
  get size(): number {
    return this.#rows.length;
  }

  /** Appends `row` to the current segment; it is journaled once this returns. */
  append(row: unknown): void {
    if (this.#closed) throw new Error('The audit journal is closed: the broker is stopping.');
    writeSync(this.#fd, `${JSON.stringify(row)}\n`);
    this.#rows.push(row);
  }

  /** Closes the current segment and starts the next one; answers the closed one. */
  seal(): JournalSegment {
    if (this.#closed) throw new Error('The audit journal is closed: the broker is stopping.');
    const sealed = { path: this.#path(this.#number), rows: this.#rows };
    closeSync(this.#fd);
    this.#number += 1;
    this.#fd = openSync(this.#path(this.#number), 'a', 0o600);
    this.#rows = [];
    return sealed;
  }

  /** Deletes a segment whose rows are committed (one deleted already is no error). */
  drop(segment: JournalSegment): void {
    rmSync(segment.path, { force: true });
  }

  /**
   * Closes the current segment, deleting it when it holds no row. A folder removed under a
   * stopping broker (the app folder deleted first) leaves nothing to delete, and is no error.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
    if (this.#rows.length === 0) rmSync(this.#path(this.#number), { force: true });
  }

  #path(number: number): string {
    return join(this.#dir, `${number}.jsonl`);
  }
}

// Whole lines only: a crash in the middle of a write leaves at most the last line cut short, and
// that row's call was never answered.
function readRows(text: string): unknown[] {
  const rows: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      // A cut-short last line.
    }
  }
  return rows;
}
