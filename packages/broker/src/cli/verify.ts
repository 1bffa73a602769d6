import { jobsApiPaths, ownerApiPaths } from '../http/paths.ts';
import type { CronFire } from '../jobs/cron/cron-scheduler.ts';
import type { CronSummary } from '../jobs/cron/cron-summary.ts';
import type { FunctionVerification } from '../verification/verification.ts';
import { appPath, callBroker } from './broker-call.ts';
import { follow, type Run } from './cron.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform verify [--app <dir>] [--json]

Runs every enabled cron schedule once on the platform dev that serves the app (one after the
other, in name order, each to its end), then lists the declared Functions that did not run
successfully since their code last changed. Integration contract Functions (operations, sync,
webhook, exchange, refresh) are not required and not listed. A queue consumer counts when a job
ran it, the inbound email Function when an inbound message did (platform mail receive), a cron
Function when a cron run did, any other Function when platform invoke or a browser action did.
Exits 1 when a Function is not exercised or a cron run failed.

Options:
  --app <dir>     The app folder (default: the current directory).
  --json          Print { cron, functions } as JSON.
  -h, --help      Show this help.`;

/** `platform verify`: the development verification of the running `platform dev`. */
export const verifyCommand = defineCommand({
  name: 'verify',
  summary: 'Run the active cron, then list the Functions not exercised since their last change.',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 0,
  async run({ values }, io) {
    const listed = await callBroker<{ schedules: CronSummary[] }>(
      io,
      values.app,
      appPath(jobsApiPaths.cron),
    );
    if (typeof listed === 'number') return listed;
    // Deterministic: each enabled schedule once, in name order, one run at a time.
    const active = listed.schedules
      .filter((s) => s.enabled)
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const runs: Run[] = [];
    for (const schedule of active) {
      const started = await callBroker<{ run: CronFire }>(
        io,
        values.app,
        appPath(jobsApiPaths.cronRun, { name: schedule.name }),
        { json: {} },
      );
      if (typeof started === 'number') return started;
      const run = await follow(io, values.app, started.run.runId);
      if (typeof run === 'number') return run;
      runs.push(run);
    }
    const body = await callBroker<{ functions: FunctionVerification[] }>(
      io,
      values.app,
      appPath(ownerApiPaths.verification),
    );
    if (typeof body === 'number') return body;
    const missing = body.functions.filter((fn) => !fn.exercised);
    const failed = runs.filter((run) => run.state !== 'succeeded');
    if (values.json) {
      io.stdout(JSON.stringify({ cron: runs, functions: body.functions }, null, 2));
    } else {
      for (const run of runs) {
        io.stdout(
          `cron ${run.name}: ${run.state}${run.lastError ? `: ${run.lastError.code}: ${run.lastError.message}` : ''}`,
        );
      }
      for (const fn of missing) {
        io.stdout(`not exercised: ${fn.name} (needs ${fn.accepts.join(' or ')})`);
      }
      if (missing.length === 0 && failed.length === 0) {
        io.stdout(
          `All ${body.functions.length} Function(s) were exercised since their last change.`,
        );
      }
    }
    return missing.length > 0 || failed.length > 0 ? exitCodes.failed : exitCodes.ok;
  },
});
