import type { RuleContext } from '../context.ts';
import { cronScheduleProblem, isTimeZone, timeZoneNames } from '../cron-expression.ts';
import type { PathSegment } from '../diagnostic.ts';
import { didYouMean } from '../suggest.ts';
import { firstDuplicates } from './duplicates.ts';

/** Reports a schedule that is not a supported five-field cron expression. */
export function checkSchedule(
  ctx: RuleContext,
  path: readonly PathSegment[],
  schedule: string,
): void {
  const problem = cronScheduleProblem(schedule);
  if (problem !== undefined) {
    ctx.report(
      'CRON_SCHEDULE_INVALID',
      path,
      `Schedule "${schedule}" is not a valid cron expression: ${problem}.`,
    );
  }
}

/** Reports a timezone that is not an IANA time zone name. */
export function checkTimeZone(
  ctx: RuleContext,
  path: readonly PathSegment[],
  timezone: string,
): void {
  if (!isTimeZone(timezone)) {
    ctx.report(
      'TIMEZONE_INVALID',
      path,
      `"${timezone}" is not an IANA time zone name such as Europe/Berlin or UTC.${didYouMean(timezone, timeZoneNames())}`,
    );
  }
}

/** Spec 2.8: unique names, five-field schedules, IANA zones, system Functions. */
export function checkCron(ctx: RuleContext): void {
  const { cron } = ctx.manifest;
  for (const [i, first] of firstDuplicates(cron, (entry) => entry.name)) {
    ctx.report(
      'CRON_NAME_DUPLICATE',
      ['cron', i, 'name'],
      `Cron name "${cron[i]!.name}" is already used by cron[${first}]; cron names must be unique.`,
    );
  }
  for (const [i, entry] of cron.entries()) {
    checkSchedule(ctx, ['cron', i, 'schedule'], entry.schedule);
    checkTimeZone(ctx, ['cron', i, 'timezone'], entry.timezone);
    ctx.requireSystemFunction(
      ['cron', i, 'function'],
      entry.function,
      'CRON_FUNCTION_NOT_SYSTEM',
      `Function of cron "${entry.name}"`,
    );
  }
}
