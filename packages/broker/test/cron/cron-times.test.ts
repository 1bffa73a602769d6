import { describe, expect, it } from 'vitest';
import { CronTimes } from '../../src/kernel/cron-times.ts';

/** Fire times in (from, to] as local `HH:MM` labels of `timezone`. */
function local(
  schedule: string,
  timezone: string,
  [from, to]: readonly [string, string],
): string[] {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return new CronTimes(schedule, timezone)
    .between(new Date(from), new Date(to))
    .map((d) => format.format(d));
}

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

// Europe/Berlin 2025: 02:00 CET → 03:00 CEST on 30 March; 03:00 CEST → 02:00 CET on 26 October.
const berlinSpring = ['2025-03-29T22:00:00Z', '2025-03-30T04:00:00Z'] as const;
const berlinFall = ['2025-10-25T22:00:00Z', '2025-10-26T04:00:00Z'] as const;
// America/New_York 2025: 02:00 EST → 03:00 EDT on 9 March; 02:00 EDT → 01:00 EST on 2 November.
const nySpring = ['2025-03-09T05:00:00Z', '2025-03-09T10:00:00Z'] as const;
const nyFall = ['2025-11-02T04:00:00Z', '2025-11-02T10:00:00Z'] as const;

describe('CronTimes: zones', () => {
  it('defaults to UTC', () => {
    const times = new CronTimes('0 9 * * *');
    expect(times.timezone).toBe('UTC');
    expect(
      iso(times.between(new Date('2025-01-01T00:00:00Z'), new Date('2025-01-03T00:00:00Z'))),
    ).toEqual(['2025-01-01T09:00:00.000Z', '2025-01-02T09:00:00.000Z']);
  });

  it('reads the pattern in the IANA zone', () => {
    const times = new CronTimes('0 9 * * *', 'Asia/Tokyo');
    expect(
      iso(times.between(new Date('2025-01-01T00:00:00Z'), new Date('2025-01-03T00:00:00Z'))),
    ).toEqual(['2025-01-02T00:00:00.000Z', '2025-01-03T00:00:00.000Z']);
    expect(times.next(new Date('2025-01-01T00:00:00Z'))?.toISOString()).toBe(
      '2025-01-02T00:00:00.000Z',
    );
  });

  it('finds rare schedules and reports none for impossible ones', () => {
    expect(new CronTimes('0 0 29 2 *').next(new Date('2025-01-01T00:00:00Z'))?.toISOString()).toBe(
      '2028-02-29T00:00:00.000Z',
    );
  });
});

describe('CronTimes: a nonexistent local time runs at the first valid minute', () => {
  it.each([
    ['fixed', '30 2 * * *', ['03:00']],
    ['step', '*/15 2 * * *', ['03:00']],
    ['list', '15,45 2 * * *', ['03:00']],
    ['range', '10-12 2 * * *', ['03:00']],
    ['step over hours', '0 */1 * * *', ['00:00', '01:00', '03:00', '04:00', '05:00', '06:00']],
    ['gap and the first valid minute together', '*/30 2,3 * * *', ['03:00', '03:30']],
    ['before the gap', '30 1 * * *', ['01:30']],
    ['weekday', '30 2 * * SUN', ['03:00']],
  ])('Europe/Berlin, %s (%s)', (_shape, schedule, expected) => {
    expect(local(schedule, 'Europe/Berlin', berlinSpring)).toEqual(expected);
  });

  it.each([
    ['fixed', '30 2 * * *', ['03:00']],
    ['step', '*/20 2 * * *', ['03:00']],
    ['list', '5,55 2 * * *', ['03:00']],
  ])('America/New_York, %s (%s)', (_shape, schedule, expected) => {
    expect(local(schedule, 'America/New_York', nySpring)).toEqual(expected);
  });
});

describe('CronTimes: a repeated local time runs once', () => {
  it.each([
    ['fixed', '30 2 * * *', ['02:30']],
    ['step', '*/15 2 * * *', ['02:00', '02:15', '02:30', '02:45']],
    ['list', '15,45 2 * * *', ['02:15', '02:45']],
    ['range', '10-12 2 * * *', ['02:10', '02:11', '02:12']],
    ['every hour', '0 * * * *', ['01:00', '02:00', '03:00', '04:00', '05:00']],
  ])('Europe/Berlin, %s (%s)', (_shape, schedule, expected) => {
    expect(local(schedule, 'Europe/Berlin', berlinFall)).toEqual(expected);
  });

  it.each([
    ['fixed', '30 1 * * *', ['01:30']],
    ['step', '*/20 1 * * *', ['01:00', '01:20', '01:40']],
    ['list', '0,30 1 * * *', ['01:00', '01:30']],
  ])('America/New_York, %s (%s)', (_shape, schedule, expected) => {
    expect(local(schedule, 'America/New_York', nyFall)).toEqual(expected);
  });

  it('fires every local minute exactly once through the repeated hour', () => {
    const labels = local('* * * * *', 'Europe/Berlin', [
      '2025-10-25T23:59:00Z',
      '2025-10-26T02:00:00Z',
    ]);
    // 121 minutes of real time, but only 61 distinct wall-clock minutes (02:00 ... 03:00).
    expect(labels).toHaveLength(61);
    expect(labels[0]).toBe('02:00');
    expect(labels.at(-1)).toBe('03:00');
    expect(new Set(labels).size).toBe(labels.length);
  });
});

describe('CronTimes: a daily schedule runs once per local date', () => {
  it.each(['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'UTC'])(
    '%s, every day of 2025',
    (timezone) => {
      for (const schedule of ['30 2 * * *', '0 1 * * *', '45 23 * * *']) {
        const fires = new CronTimes(schedule, timezone).between(
          new Date('2024-12-31T12:00:00Z'),
          new Date('2025-12-31T12:00:00Z'),
        );
        const dates = fires.map((d) =>
          new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(d),
        );
        expect(new Set(dates).size).toBe(dates.length);
        expect(dates.length).toBeGreaterThanOrEqual(364);
        expect(dates.length).toBeLessThanOrEqual(366);
      }
    },
  );
});
