/**
 * The time source of the job engine and the cron scheduler. Every timestamp the engine writes
 * (`created_at`, `run_at`, leases, retention) comes from it rather than from `now()` in SQL, so
 * tests move time forward (14-day retention, DST nights, downtime) without waiting.
 */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock that only moves when told to, for tests.
 *
 * @example
 * ```ts
 * const clock = new ManualClock('2024-03-31T00:00:00Z');
 * clock.advance(90 * 60_000);
 * clock.now().toISOString(); // '2024-03-31T01:30:00.000Z'
 * ```
 */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | string | number = Date.now()) {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.#ms += ms;
  }

  /** Sets the clock to `at`. */
  set(at: Date | string | number): void {
    this.#ms = new Date(at).getTime();
  }
}

/**
 * A lifetime of whole minutes as the pages, emails, errors, CLI help and terminal say it:
 * `inMinutes(limits.emailLinkSeconds)` is `15 minutes`.
 *
 * @example
 * ```ts
 * `The link is valid for ${inMinutes(limits.emailLinkSeconds)}.`;
 * ```
 */
export function inMinutes(seconds: number): string {
  const minutes = seconds / 60;
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** `at` plus `seconds`. */
export function addSeconds(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}
