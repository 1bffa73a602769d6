import { CronPattern } from 'croner';

/**
 * Why `schedule` is not a supported cron expression, or `undefined` when it is. Supported: the
 * five fields minute, hour, day of month, month, day of week, each `*`, numbers, ranges `a-b`,
 * steps `x/n`, lists `a,b`, and month and weekday names (JAN-DEC, SUN-SAT); parsed by croner in
 * its `5-part` mode, the same parser the broker schedules with. Not supported: a seconds or year
 * field, nicknames such as `@daily`, and `?`.
 *
 * @example
 * ```ts
 * cronScheduleProblem('0 9 * * MON-FRI'); // undefined
 * cronScheduleProblem('@daily'); // 'nicknames such as @daily are not supported; ...'
 * ```
 */
export function cronScheduleProblem(schedule: string): string | undefined {
  const trimmed = schedule.trim();
  if (trimmed.startsWith('@')) {
    return `nicknames such as ${trimmed.split(/\s/)[0]} are not supported; write the five fields, e.g. "0 0 * * *" for daily at midnight`;
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) {
    return `it has ${fields.length} field${fields.length === 1 ? '' : 's'}; write exactly five: minute hour day-of-month month day-of-week${fields.length === 6 ? ' (seconds are not supported)' : ''}`;
  }
  if (trimmed.includes('?')) return '"?" is not supported; use "*"';
  try {
    new CronPattern(trimmed, undefined, { mode: '5-part' });
    return undefined;
  } catch (error) {
    const message =
      error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    return message.replace(/\.$/, '');
  }
}

let zones: Set<string> | undefined;

/**
 * Whether `name` is an IANA time zone name the runtime knows, spelled exactly (`Europe/Paris`,
 * `UTC`; not `europe/paris` or `+01:00`).
 */
export function isTimeZone(name: string): boolean {
  zones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (zones.has(name)) return true;
  // Aliases such as UTC or Etc/GMT+1 are accepted by Intl but not always listed.
  if (!/^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Listed IANA zone names, for "did you mean" hints. */
export function timeZoneNames(): Iterable<string> {
  zones ??= new Set(Intl.supportedValuesOf('timeZone'));
  return zones;
}
