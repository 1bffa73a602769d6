import type { Clock } from '../kernel/clock.ts';

/**
 * Counts failures per key in a sliding window, in memory (one broker process serves one
 * developer; a restart forgets the counts). Used for password attempts: by address and by
 * client.
 *
 * @example
 * ```ts
 * const limiter = new FailureLimiter(clock, 5, 900);
 * if (limiter.blockedFor('email:a@b.c') > 0) refuse();
 * const slot = limiter.reserve('email:a@b.c');
 * if (await passwordMatches()) limiter.release('email:a@b.c', slot);
 * ```
 */
export class FailureLimiter {
  readonly #clock: Clock;
  readonly #max: number;
  readonly #windowMs: number;
  readonly #failures = new Map<string, number[]>();

  constructor(clock: Clock, max: number, windowSeconds: number) {
    this.#clock = clock;
    this.#max = max;
    this.#windowMs = windowSeconds * 1000;
  }

  /** Seconds until `key` may try again; 0 when it may now. */
  blockedFor(key: string): number {
    const recent = this.#recent(key);
    if (recent.length < this.#max) return 0;
    const oldest = recent[recent.length - this.#max] as number;
    return Math.max(1, Math.ceil((oldest + this.#windowMs - this.#clock.now().getTime()) / 1000));
  }

  /**
   * Counts an attempt of `key` as a failure now, before it is checked, so that attempts made
   * at the same moment see it (a slow check must not let them all through). Resolves to a
   * handle for {@link release} once the attempt turns out not to be a failure.
   */
  reserve(key: string): number {
    const at = this.#clock.now().getTime();
    const recent = this.#recent(key);
    recent.push(at);
    this.#failures.set(key, recent);
    return at;
  }

  /** Takes back a {@link reserve}d attempt of `key` that did not fail. */
  release(key: string, handle: number): void {
    const recent = this.#failures.get(key);
    const index = recent?.lastIndexOf(handle) ?? -1;
    if (recent === undefined || index < 0) return;
    recent.splice(index, 1);
    if (recent.length === 0) this.#failures.delete(key);
  }

  /** Forgets `key` (after a success). */
  reset(key: string): void {
    this.#failures.delete(key);
  }

  #recent(key: string): number[] {
    const since = this.#clock.now().getTime() - this.#windowMs;
    const recent = (this.#failures.get(key) ?? []).filter((at) => at > since);
    if (recent.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, recent);
    return recent;
  }
}
