import { randomUUID } from 'node:crypto';
import { jobsApiPaths } from '../http/paths.ts';
import type { JobPage } from '../jobs/job-history.ts';
import type { Job } from '../jobs/job-rows.ts';
import { printable } from '../logs/printable.ts';
import { appPath, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform jobs [--queue <q>] [--state <s>] [--limit <n>] [--from <iso>] [--to <iso>]
                     [--cursor <c>] [--app <dir>] [--json]
       platform jobs enqueue <queue> <json> [--idempotency-key <k>] [--delay <seconds>]
                     [--app <dir>] [--json]

Lists the app's background jobs, newest first, from the platform dev that serves the app
(the jobs API, GET /v1/apps/{appId}/jobs): safe metadata only, never payloads or keys.

enqueue puts a job with the payload <json> (an object) into the declared queue <queue>, as the
system, as jobs.enqueue in a Function does; its consumer Function runs it. It prints the job.

Options:
  --queue <q>     Only this queue.
  --state <s>     queued, running, retry_wait, succeeded or dead_lettered.
  --limit <n>     How many (1 to 100, default 25).
  --from <iso>    Created at or after (ISO 8601 with a zone, e.g. 2025-01-31T09:00:00Z).
  --to <iso>      Created at or before (inclusive).
  --cursor <c>    The next page (printed at the end of a full page).
  --app <dir>     The app folder (default: the current directory).
  --idempotency-key <k>  enqueue: the job's key; the same key and payload return the first
                  job (default: a new key each time).
  --delay <seconds>  enqueue: run the job this many seconds from now.
  --json          Print { jobs: [...], nextCursor } (enqueue: { job, created }) as JSON.
  -h, --help      Show this help.`;

/** One job as a terminal line (the consumer's error message made {@link printable}). */
export function jobLine(job: Job): string {
  const error = job.lastError ? `  ${job.lastError.code}: ${job.lastError.message}` : '';
  return printable(
    `${job.createdAt}  ${job.id}  ${job.queue}  ${job.state}  attempt ${job.attempt}/${job.maxAttempts}${error}`,
  );
}

/** `platform jobs`: a client of the jobs API of the running `platform dev`. */
export const jobsCommand = defineCommand({
  name: 'jobs',
  summary: 'List the background jobs of the running platform dev, or enqueue one.',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    queue: { type: 'string' },
    state: { type: 'string' },
    limit: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    cursor: { type: 'string' },
    'idempotency-key': { type: 'string' },
    delay: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 3,
  async run({ values, positionals }, io, usageError) {
    if (positionals.length > 0) {
      const [action, queue, json] = positionals;
      if (action !== 'enqueue' || queue === undefined || json === undefined) {
        return usageError('expected "enqueue <queue> <json>", or no arguments to list jobs');
      }
      let payload: unknown;
      try {
        payload = JSON.parse(json);
      } catch {
        return usageError(`<json> is not valid JSON: ${json}`);
      }
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        return usageError('<json> must be a JSON object, for example \'{"todoId":"..."}\'');
      }
      if (values.delay !== undefined && !/^\d+$/.test(values.delay)) {
        return usageError('--delay must be a whole number of seconds');
      }
      const answer = await callBroker<{ job: Job; created: boolean }>(
        io,
        values.app,
        appPath(jobsApiPaths.enqueue, { queue }),
        {
          json: {
            payload,
            idempotencyKey: values['idempotency-key'] ?? randomUUID(),
            ...(values.delay === undefined ? {} : { delaySeconds: Number(values.delay) }),
          },
          label: 'jobs enqueue',
        },
      );
      if (typeof answer === 'number') return answer;
      if (values.json) io.stdout(JSON.stringify(answer, null, 2));
      else {
        io.stdout(`${answer.created ? 'Enqueued' : 'Already enqueued with this key'}:`);
        io.stdout(jobLine(answer.job));
      }
      return exitCodes.ok;
    }
    if (values.limit !== undefined && !/^\d+$/.test(values.limit)) {
      return usageError('--limit must be a number');
    }
    // The broker checks every value (INVALID_INPUT names the field); the CLI only passes them on.
    const query = new URLSearchParams();
    for (const key of ['queue', 'state', 'limit', 'from', 'to', 'cursor'] as const) {
      const value = values[key];
      if (value !== undefined) query.set(key, value);
    }
    const search = query.size > 0 ? `?${query}` : '';
    const list = appPath(jobsApiPaths.list);
    const path = (appId: string) => `${list(appId)}${search}`;
    const page = await callBroker<JobPage>(io, values.app, path);
    if (typeof page === 'number') return page;
    if (values.json) {
      io.stdout(JSON.stringify(page, null, 2));
      return exitCodes.ok;
    }
    if (page.jobs.length === 0) io.stdout('No jobs match.');
    for (const job of page.jobs) io.stdout(jobLine(job));
    if (page.nextCursor !== null) {
      io.stdout(`More jobs: run again with --cursor ${page.nextCursor}`);
    }
    return exitCodes.ok;
  },
});
