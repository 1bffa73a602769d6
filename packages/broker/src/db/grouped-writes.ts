interface Waiting<Item, Result> {
  readonly item: Item;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes items one statement at a time, the items that arrive while a statement is under way
 * together in the next one (group commit). The first item is sent at once, so none waits longer
 * than it would have behind the statement before it; under load, items that arrive together
 * cost one statement and one round trip instead of one each. On PGlite every statement takes
 * its turn on the database's one thread, and each turn costs a trip to that thread and back
 * through the broker's busy event loop, so one statement per item caps the items per second at
 * the round trips per second, whatever the statement's own cost.
 *
 * Each item's promise settles once the statement that carries it has: resolved with its own
 * result after the statement committed, rejected with the statement's error otherwise (every
 * item of a failed statement fails alike).
 *
 * @example
 * ```ts
 * const writes = new GroupedWrites<Row, void>(async (rows) => {
 *   await db.query('INSERT INTO t (a) SELECT * FROM unnest($1::text[])', [rows.map((r) => r.a)]);
 *   return rows.map(() => undefined);
 * });
 * await writes.add({ a: 'x' }); // committed once this resolves
 * ```
 */
export class GroupedWrites<Item, Result> {
  readonly #write: (items: readonly Item[]) => Promise<readonly Result[]>;
  readonly #most: number;
  #waiting: Waiting<Item, Result>[] = [];
  #writing = false;

  /**
   * `write` writes its items in one statement and answers one result per item, in their order;
   * at most `most` items go into one statement.
   */
  constructor(write: (items: readonly Item[]) => Promise<readonly Result[]>, most = 500) {
    if (!Number.isInteger(most) || most < 1) {
      throw new RangeError(`most must be a whole number from 1, not ${most}.`);
    }
    this.#write = write;
    this.#most = most;
  }

  /** Writes `item` with the next statement; resolves with its result once that committed. */
  add(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.#most);
      try {
        const results = await this.#write(batch.map((one) => one.item));
        if (results.length !== batch.length) {
          throw new TypeError(
            `A grouped write answered ${results.length} results for ${batch.length} items.`,
          );
        }
        for (const [i, one] of batch.entries()) one.resolve(results[i] as Result);
      } catch (error) {
        for (const one of batch) one.reject(error);
      }
    }
    this.#writing = false;
  }
}
