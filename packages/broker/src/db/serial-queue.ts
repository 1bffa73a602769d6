/**
 * A first-in first-out lock. PGlite is a single session, so every statement and every
 * transaction of the broker takes its turn here: a plain query can never slip into the middle
 * of somebody else's transaction.
 */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;

  /** How many tasks are queued or running. */
  get size(): number {
    return this.#waiting;
  }

  /** Runs `task` once every task queued before it has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.#waiting += 1;
    const result = this.#tail.then(task);
    // The next task waits for this one to settle, whether it failed or not.
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result.finally(() => {
      this.#waiting -= 1;
    });
  }
}
