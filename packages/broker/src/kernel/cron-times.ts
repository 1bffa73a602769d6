import { Cron } from 'croner';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Wider than any daylight-saving shift (at most two hours anywhere today).
const SLOP = 3 * HOUR;
// Enough for a schedule that fires on 29 February only, several years ahead.
const MAX_STEPS = 600_000;

/**
 * The fire times of a five-field cron schedule in an IANA time zone, with the broker's own
 * rule on top of croner (spec section 8):
 *
 * - croner only decides which **local wall-clock minutes** match (it runs in UTC on wall-clock
 *   values, so its own DST handling never applies);
 * - each matching wall-clock minute fires **at most once**: a repeated local time (fall back)
 *   fires at its first occurrence only, for every pattern shape (fixed, step, list, range);
 * - a matching wall-clock minute that does not exist (spring forward) fires at the **first
 *   valid minute after the gap**; several gap minutes and the first valid minute itself
 *   collapse into that one fire.
 *
 * So a daily schedule runs once per local date, whatever the pattern looks like.
 *
 * @example
 * ```ts
 * const times = new CronTimes('30 2 * * *', 'Europe/Berlin');
 * times.between(new Date('2025-03-30T00:00:00Z'), new Date('2025-03-30T03:00:00Z'));
 * // [2025-03-30T01:00:00.000Z] — 03:00 local, the first minute after the gap
 * ```
 */
export class CronTimes {
  readonly schedule: string;
  readonly timezone: string;
  readonly #cron: Cron;
  readonly #format: Intl.DateTimeFormat;

  constructor(schedule: string, timezone = 'UTC') {
    this.schedule = schedule;
    this.timezone = timezone;
    this.#cron = new Cron(schedule, { mode: '5-part', timezone: 'UTC' });
    this.#format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  }

  /** Fire instants `t` with `after < t <= until`, ascending. */
  between(after: Date, until: Date): Date[] {
    const a = after.getTime();
    const b = until.getTime();
    if (b <= a) return [];
    const steady = this.#offset(a - SLOP) === this.#offset(b + SLOP);
    const fires: number[] = [];
    this.#scan(this.#wall(a) - (steady ? 0 : SLOP), (fire, wall) => {
      if (wall > this.#wall(b)) return false;
      if (fire > a && fire <= b && fire !== fires[fires.length - 1]) fires.push(fire);
      return true;
    });
    return fires.map((t) => new Date(t));
  }

  /** The first fire instant after `after`, or `null` when the schedule never fires again. */
  next(after: Date): Date | null {
    const a = after.getTime();
    let found: number | null = null;
    this.#scan(this.#wall(a) - SLOP, (fire) => {
      if (fire > a) found = fire;
      return found === null;
    });
    return found === null ? null : new Date(found);
  }

  // Visits matching wall-clock minutes from `wallStart` on, with their fire instants, while
  // `visit` returns true.
  #scan(wallStart: number, visit: (fire: number, wall: number) => boolean): void {
    let previous = new Date(wallStart - 1000);
    for (let step = 0; step < MAX_STEPS; step++) {
      const match = this.#cron.nextRun(previous);
      if (!match) return;
      const wall = match.getTime();
      if (!visit(this.#fire(wall), wall)) return;
      previous = match;
    }
  }

  // The instant a matching wall-clock minute fires at: its first occurrence, or the first valid
  // minute after the gap it falls in.
  #fire(wall: number): number {
    const guess = this.#offset(wall);
    const offsets = new Set([
      this.#offset(wall - guess - SLOP),
      guess,
      this.#offset(wall - guess + SLOP),
    ]);
    const valid = [...offsets].map((o) => wall - o).filter((t) => this.#wall(t) === wall);
    if (valid.length > 0) return Math.min(...valid);
    const low = Math.min(...[...offsets].map((o) => wall - o));
    const high = Math.max(...[...offsets].map((o) => wall - o));
    for (let t = low; t <= high + SLOP; t += MINUTE) if (this.#wall(t) > wall) return t;
    return high;
  }

  // The local wall-clock minute of instant `t`, as milliseconds of the same fields in UTC.
  #wall(t: number): number {
    const parts: Record<string, number> = {};
    for (const p of this.#format.formatToParts(new Date(Math.floor(t / MINUTE) * MINUTE))) {
      if (p.type !== 'literal') parts[p.type] = Number(p.value);
    }
    const year = parts.year ?? 1970;
    return Date.UTC(
      year,
      (parts.month ?? 1) - 1,
      parts.day ?? 1,
      parts.hour ?? 0,
      parts.minute ?? 0,
    );
  }

  #offset(t: number): number {
    return this.#wall(t) - Math.floor(t / MINUTE) * MINUTE;
  }
}
