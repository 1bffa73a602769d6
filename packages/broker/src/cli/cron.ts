import { parseArgs } from 'node:util';
import type { CronFire } from '../cron/cron-scheduler.ts';
import type { CronRunSummary, CronSummary } from '../cron/cron-summary.ts';
import { jobSummaryApiPaths } from '../http/routes/job-summary-routes.ts';
import { callBroker, localAppPath } from './broker-call.ts';
import { type CliIO, type Command, exitCodes } from './io.ts';

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

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      app: { type: 'string', default: '.' },
      wait: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

type Run = CronRunSummary & { name: string };
const terminal = (run: Run) => run.state === 'succeeded' || run.state === 'dead_lettered';
const outcome = (run: Run) =>
  `${run.name} ${run.id} ${run.state}${run.lastError ? `: ${run.lastError.code}: ${run.lastError.message}` : ''}`;

async function follow(io: CliIO, app: string, runId: string): Promise<Run | number> {
  // A cron run is limited to the 15-minute Function timeout, so this ends.
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    const body = await callBroker<{ run: Run }>(
      io,
      app,
      localAppPath(jobSummaryApiPaths.cronRunGet, { runId }),
    );
    if (typeof body === 'number' || terminal(body.run))
      return typeof body === 'number' ? body : body.run;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** `platform cron run <name>` and `platform cron list`: clients of the running `platform dev`. */
export const cronCommand: Command = {
  summary: 'Run a cron schedule now, or list schedules, on the running platform dev.',
  usage,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      io.stderr(`platform cron: ${(error as Error).message}\n\n${usage}`);
      return exitCodes.usage;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout(usage);
      return exitCodes.ok;
    }
    const [action, name, ...extra] = positionals;
    if (action === 'list' && name === undefined) {
      const body = await callBroker<{ schedules: CronSummary[] }>(
        io,
        values.app,
        localAppPath(jobSummaryApiPaths.cron),
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
    if (action !== 'run' || name === undefined || extra.length > 0) {
      io.stderr(`platform cron: expected "run <name>" or "list"\n\n${usage}`);
      return exitCodes.usage;
    }
    const started = await callBroker<{ run: CronFire }>(
      io,
      values.app,
      localAppPath(jobSummaryApiPaths.cronRun, { name }),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
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
};
