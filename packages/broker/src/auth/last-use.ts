/**
 * How stale a credential's stored last use may grow: a use is written only when the stored one
 * is older than this, so a token in constant use costs one row write a minute, not one a
 * request, and its concurrent requests do not queue on its row's lock. The last use shown
 * (`platform app access-token list`, the console's Access screen) is accurate to this.
 */
export const LAST_USE_INTERVAL_MS = 60_000;

/** How many credentials one process remembers writing; past it, the oldest are forgotten. */
export const LAST_USE_REMEMBERED = 10_000;

/**
 * The credentials (by the SHA-256 of their value, as stored) whose last use this process wrote
 * within {@link LAST_USE_INTERVAL_MS}. For those, a request only reads the row: no conditional
 * `UPDATE` that would take the row's lock while a burst's first write is still committing.
 * Forgetting an entry (a full map, a restart, another process) costs one conditional statement
 * that the stored time then skips, never a wrong answer: the row itself decides.
 */
export class RecentLastUse {
  readonly #writtenAt = new Map<string, number>();
  readonly #intervalMs: number;
  readonly #max: number;

  constructor(intervalMs = LAST_USE_INTERVAL_MS, max = LAST_USE_REMEMBERED) {
    this.#intervalMs = intervalMs;
    this.#max = max;
  }

  /**
   * Whether the use at `now` should try to write the last use; when it should, the credential
   * counts as written from now on, so the requests of the same burst only read.
   */
  claim(digest: string, now: Date): boolean {
    const at = this.#writtenAt.get(digest);
    const ms = now.getTime();
    // A clock that went back (a test's, a corrected one) writes again rather than trusting it.
    if (at !== undefined && ms >= at && ms - at < this.#intervalMs) return false;
    // Re-inserting keeps the map in order of writes, so the first key is the oldest.
    this.#writtenAt.delete(digest);
    this.#writtenAt.set(digest, ms);
    if (this.#writtenAt.size > this.#max) {
      const oldest = this.#writtenAt.keys().next().value;
      if (oldest !== undefined) this.#writtenAt.delete(oldest);
    }
    return true;
  }

  /**
   * After a claimed use's statement: `storedAt` is the last use the row now holds (this use's
   * time when it wrote, an earlier one another process wrote when it did not), or `null` when
   * nothing was written (no such live credential, or the statement failed), so the next use
   * tries again. Remembering the stored time rather than this use's keeps the shown last use
   * within the interval of the real one when another process wrote it.
   */
  settle(digest: string, storedAt: Date | null): void {
    this.#writtenAt.delete(digest);
    if (storedAt !== null) this.#writtenAt.set(digest, storedAt.getTime());
  }

  /** The oldest stored last use that no longer counts as recent at `now`. */
  staleBefore(now: Date): Date {
    return new Date(now.getTime() - this.#intervalMs);
  }
}

/** The two statements a credential's use runs, one of them per request. */
export interface UseStatements<Row extends { readonly last_used_at: Date | string | null }> {
  /** The live credential's row, written nothing. */
  read(): Promise<Row | undefined>;
  /**
   * The live credential's row, its last use set to now when the stored one is older than
   * `staleBefore` (one statement: a conditional `UPDATE` beside the read), answering the last
   * use the row holds afterwards.
   */
  write(staleBefore: Date): Promise<Row | undefined>;
}

/**
 * Looks a credential up for a use at `now`, writing its last use at most once per interval:
 * only the use that claims it in `recent` runs the conditional write, the others read.
 */
export async function useRecordingLastUse<
  Row extends { readonly last_used_at: Date | string | null },
>(
  recent: RecentLastUse,
  digest: string,
  now: Date,
  statements: UseStatements<Row>,
): Promise<Row | undefined> {
  if (!recent.claim(digest, now)) return statements.read();
  let row: Row | undefined;
  try {
    row = await statements.write(recent.staleBefore(now));
  } catch (error) {
    recent.settle(digest, null);
    throw error;
  }
  const stored = row?.last_used_at ?? null;
  recent.settle(digest, stored === null ? null : new Date(stored));
  return row;
}
