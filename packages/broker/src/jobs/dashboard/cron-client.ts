// The dashboard's cron schedules, in the browser.
import {
  actionCell,
  confirmed,
  fill,
  get,
  localTime,
  row,
  type SectionScript,
  send,
} from '../../pages/dashboard/dashboard-client-kit.ts';
import type { CronSummary } from '../cron/cron-summary.ts';

type Api = { readonly cron: string; readonly run: string };

async function loadCron(api: Api): Promise<void> {
  const { schedules } = await get<{ schedules: CronSummary[] }>(api.cron, {});
  fill(
    'cron',
    schedules.map((c) => {
      const tr = row([
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
      ]);
      tr.append(
        actionCell(
          'Run now',
          async () => {
            if (!confirmed(`Run ${c.function} for schedule ${c.name} now?`)) return;
            await send('POST', api.run.replace(':name', encodeURIComponent(c.name)));
            await loadCron(api);
          },
          `Run now: schedule ${c.name}`,
        ),
      );
      return tr;
    }),
    'No cron schedules are declared in platform.yaml.',
    9,
  );
}

export default { open: loadCron, refresh: loadCron } satisfies SectionScript<keyof Api>;
