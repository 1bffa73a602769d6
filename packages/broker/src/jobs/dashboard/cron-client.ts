// The dashboard's cron schedules, in the browser.
import {
  fill,
  get,
  localTime,
  row,
  type SectionScript,
} from '../../pages/dashboard/dashboard-client-kit.ts';
import type { CronSummary } from '../cron/cron-summary.ts';

async function loadCron(api: { readonly cron: string }): Promise<void> {
  const { schedules } = await get<{ schedules: CronSummary[] }>(api.cron, {});
  fill(
    'cron',
    schedules.map((c) =>
      row([
        c.name,
        c.schedule,
        c.timezone,
        c.function,
        c.enabled ? 'yes' : 'no',
        c.lastRun
          ? `${localTime(c.lastRun.scheduledAt)}${c.lastRun.manual ? ' (manual)' : ''}`
          : 'never',
        c.lastRun
          ? `${c.lastRun.state}${c.lastRun.lastError ? ` ${c.lastRun.lastError.code}` : ''}`
          : '',
        c.nextRunAt ? localTime(c.nextRunAt) : 'disabled',
      ]),
    ),
    'No cron schedules are declared in platform.yaml.',
    8,
  );
}

export default { open: loadCron, refresh: loadCron } satisfies SectionScript<'cron'>;
