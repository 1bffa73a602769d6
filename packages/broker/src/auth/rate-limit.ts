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
 * limiter.fail('email:a@b.c');
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

  /** Records one failure of `key`. */
  fail(key: string): void {
    const recent = this.#recent(key);
    recent.push(this.#clock.now().getTime());
    this.#failures.set(key, recent);
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
