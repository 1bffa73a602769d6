import type { CloseStep } from '../feature/broker-feature.ts';

export type { CloseStep };

/**
 * What a start has opened so far, closed in reverse order. Each step that opens something
 * registers how to close it right away; {@link Teardown.run} closes everything when a later step
 * throws, and the started thing's `close()` is {@link Teardown.close} itself, so a failed start
 * and a normal stop close the same list.
 *
 * @example
 * ```ts
 * const teardown = new Teardown();
 * return teardown.run(async () => {
 *   const db = await openDatabase(options);
 *   teardown.add(() => db.close());
 *   const server = await listen(); // throws: the database is closed, then this error rethrown
 *   teardown.add(() => server.close());
 *   return { server, close: () => teardown.close() };
 * });
 * ```
 */
export class Teardown {
  readonly #steps: CloseStep[] = [];
  readonly #report: (error: unknown) => void;
  #closing: Promise<void> | undefined;

  /** @param report receives what a close step threw while a failed start was cleaned up. */
  constructor(report: (error: unknown) => void = () => undefined) {
    this.#report = report;
  }

  /** Registers how to close what was just opened; it is closed before everything added earlier. */
  add(step: CloseStep): void {
    this.#steps.push(step);
  }

  /**
   * Runs a start. When it throws, everything registered so far is closed (failures of those
   * steps go to the reporter) and the start's own error is rethrown.
   */
  async run<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      await this.close().catch(this.#report);
      throw error;
    }
  }

  /**
   * Closes everything registered, last first, once: later calls wait for the same closing. A
   * step that throws does not keep the earlier ones open; its error is thrown at the end (all of
   * them in an `AggregateError` when several failed).
   */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const step of [...this.#steps].reverse()) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'Several parts failed to close.');
  }
}
