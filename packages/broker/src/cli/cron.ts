import { jobsApiPaths } from '../http/paths.ts';
import type { CronFire } from '../jobs/cron/cron-scheduler.ts';
import type { CronRunSummary, CronSummary } from '../jobs/cron/cron-summary.ts';
import { appPath, callBroker } from './broker-call.ts';
import { type CliIO, defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform cron run <name> [--wait] [--app <dir>] [--json]
       platform cron list [--app <dir>] [--json]

run   Runs cron schedule <name> now on the platform dev that serves the app (enabled or not),
      with the envelope { source: 'platform.cron', name, scheduledAt: <now> }. With --wait,
      waits until the run has finished and exits 1 when it failed.
list  Lists the declared schedules with their last and next run.

Options:
  --wait          Wait for the run to finish and print its outcome.
  --app <dir>     The app folder (default: the current directory).
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

/** A cron run as the cron API answers it. */
export type Run = CronRunSummary & { name: string };
const terminal = (run: Run) => run.state === 'succeeded' || run.state === 'dead_lettered';
const outcome = (run: Run) =>
  `${run.name} ${run.id} ${run.state}${run.lastError ? `: ${run.lastError.code}: ${run.lastError.message}` : ''}`;

/** Polls a cron run until it has finished; a number is the exit code of a failed request. */
export async function follow(io: CliIO, app: string, runId: string): Promise<Run | number> {
  // A cron run is limited to the 15-minute Function timeout, so this ends.
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    const body = await callBroker<{ run: Run }>(
      io,
      app,
      appPath(jobsApiPaths.cronRunGet, { runId }),
    );
    if (typeof body === 'number' || terminal(body.run))
      return typeof body === 'number' ? body : body.run;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** `platform cron run <name>` and `platform cron list`: clients of the running `platform dev`. */
export const cronCommand = defineCommand({
  name: 'cron',
  summary: 'Run a cron schedule now, or list schedules, on the running platform dev.',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    wait: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  actions: ['run', 'list'],
  async run({ values, positionals }, io, usageError) {
    const [action, name] = positionals;
    if (action === 'list' && name === undefined) {
      const body = await callBroker<{ schedules: CronSummary[] }>(
        io,
        values.app,
        appPath(jobsApiPaths.cron),
      );
      if (typeof body === 'number') return body;
      if (values.json) io.stdout(JSON.stringify(body, null, 2));
      else if (body.schedules.length === 0) io.stdout('No cron schedules are declared.');
      for (const c of values.json ? [] : body.schedules) {
        const last = c.lastRun ? `${c.lastRun.scheduledAt} ${c.lastRun.state}` : 'never';
        io.stdout(
          `${c.name}  '${c.schedule}' ${c.timezone}  ${c.function}  last: ${last}  next: ${c.nextRunAt ?? 'disabled'}`,
        );
      }
      return exitCodes.ok;
    }
    if (action !== 'run' || name === undefined)
      return usageError('expected "run <name>" or "list"');
    const started = await callBroker<{ run: CronFire }>(
      io,
      values.app,
      appPath(jobsApiPaths.cronRun, { name }),
      { json: {} },
    );
    if (typeof started === 'number') return started;
    if (!values.wait) {
      io.stdout(
        values.json
          ? JSON.stringify(started, null, 2)
          : `Started ${name} (run ${started.run.runId}, scheduledAt ${started.run.scheduledAt}).`,
      );
      return exitCodes.ok;
    }
    const run = await follow(io, values.app, started.run.runId);
    if (typeof run === 'number') return run;
    io.stdout(values.json ? JSON.stringify({ run }, null, 2) : outcome(run));
    return run.state === 'succeeded' ? exitCodes.ok : exitCodes.failed;
  },
});
