/** Which tasks a {@link SerialQueue} starts first: every `ahead` task before any `normal` one. */
export type Lane = 'ahead' | 'normal';

/**
 * A first-in first-out lock with a lane that goes first. PGlite is a single session, so every
 * statement and every transaction of the broker takes its turn here: a plain query can never
 * slip into the middle of somebody else's transaction. A task in the `ahead` lane still waits
 * for the task that is running, then starts before the `normal` tasks that were waiting.
 */
export class SerialQueue {
  readonly #lanes: Record<Lane, (() => void)[]> = { ahead: [], normal: [] };
  #busy = false;
  #waiting = 0;

  /** How many tasks are queued or running. */
  get size(): number {
    return this.#waiting;
  }

  /**
   * Runs `task` once the running task has settled, and every task queued before it in its lane
   * (and, for the `normal` lane, every `ahead` task).
   */
  run<T>(task: () => Promise<T>, lane: Lane = 'normal'): Promise<T> {
    this.#waiting += 1;
    return new Promise<T>((resolve, reject) => {
      this.#lanes[lane].push(() => {
        // The next task waits for this one to settle, whether it failed or not.
        Promise.resolve()
          .then(task)
          .then(resolve, reject)
          .finally(() => {
            this.#waiting -= 1;
            this.#busy = false;
            this.#next();
          });
      });
      if (!this.#busy) this.#next();
    });
  }

  #next(): void {
    const start = this.#lanes.ahead.shift() ?? this.#lanes.normal.shift();
    if (start === undefined) return;
    this.#busy = true;
    start();
  }
}
