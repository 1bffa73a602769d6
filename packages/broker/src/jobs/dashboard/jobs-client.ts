// The dashboard's Background jobs section, in the browser: totals and depth (refreshed), queue
// policy, and the history, which stays on its page until asked (stable pages).

import { barChart, seriesOf } from '../../pages/dashboard/bar-chart-client.ts';
import {
  $,
  actionCell,
  confirmed,
  fill,
  get,
  localTime,
  pad,
  row,
  run,
  type SectionScript,
  send,
} from '../../pages/dashboard/dashboard-client-kit.ts';
import type { JobPage } from '../job-history.ts';
import type { Job } from '../job-rows.ts';
import type { JobDepth, JobSummary, JobsPerMinute } from '../job-summary.ts';
import { jobChartStates } from './job-chart.ts';

type Api = Readonly<Record<'jobs' | 'summary' | 'perMinute' | 'retry' | 'cancel', string>>;

/**
 * A `datetime-local` value (the browser's local time) as ISO 8601 with its offset, as the API
 * wants it. `to` is inclusive of the whole chosen minute, so it becomes the minute's last
 * millisecond.
 */
function toIso(value: string, end: boolean): string {
  const d = new Date(value);
  if (end) d.setTime(d.getTime() + (value.length > 16 ? 999 : 59_999));
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
}

// History state: the cursors of the pages before the current one (Previous pops one).
let filters: { from?: string; to?: string; queue?: string; state?: string } = {};
let cursors: (string | undefined)[] = [];
let cursor: string | undefined;
let nextCursor: string | null = null;

const depthText = (d: JobDepth) =>
  `Depth now: ${d.queued} queued, ${d.retryWait} waiting for a retry, ${d.running} running.`;

async function loadSummary(api: Api): Promise<void> {
  const [summary, minutes] = await Promise.all([
    get<JobSummary>(api.summary, { from: filters.from, to: filters.to }),
    get<JobsPerMinute>(api.perMinute, {}),
  ]);
  $('jobs-chart').replaceChildren(
    barChart(seriesOf(minutes.perMinute, jobChartStates), 'jobs created'),
  );
  for (const key of ['created', 'retried', 'succeeded', 'failed'] as const) {
    $(`total-${key}`).textContent = String(summary.totals[key]);
  }
  $('depth-total').textContent = String(summary.depth.total);
  $('depth-detail').textContent = depthText(summary.depth);
  fill(
    'queues',
    summary.queues.map((q) =>
      row([
        q.name,
        q.function,
        q.concurrency,
        q.maxAttempts,
        `${q.retryDelaySeconds} s`,
        q.retryBackoff ? 'yes' : 'no',
        `${q.timeoutSeconds} s`,
        q.depth.queued,
        q.depth.retryWait,
        q.depth.running,
      ]),
    ),
    'No queues are declared in platform.yaml.',
    10,
  );
  const select = $<HTMLSelectElement>('filter-queue');
  if (select.options.length === 1) {
    for (const q of summary.queues) select.add(new Option(q.name, q.name));
  }
}

// Retry on a dead-lettered job, Cancel on a pending one; each asks first, then reloads.
function jobAction(api: Api, j: Job): HTMLTableCellElement {
  const act = (verb: 'retry' | 'cancel', question: string) =>
    actionCell(
      verb === 'retry' ? 'Retry' : 'Cancel',
      async () => {
        if (!confirmed(question)) return;
        await send('POST', api[verb].replace(':jobId', encodeURIComponent(j.id)));
        await Promise.all([loadSummary(api), loadHistory(api)]);
      },
      `${verb === 'retry' ? 'Retry' : 'Cancel'} job ${j.id}`,
    );
  if (j.state === 'dead_lettered') {
    return act('retry', `Run job ${j.id} again from its first attempt?`);
  }
  if (j.state === 'queued' || j.state === 'retry_wait') {
    return act('cancel', `Cancel job ${j.id}? It will not run.`);
  }
  return document.createElement('td');
}

const jobRow = (api: Api, j: Job) => {
  const tr = row(
    [
      localTime(j.createdAt),
      j.id,
      j.queue,
      j.state,
      `${j.attempt} / ${j.maxAttempts}`,
      localTime(j.runAt),
      localTime(j.finishedAt),
      j.lastError ? `${j.lastError.code}: ${j.lastError.message}` : '',
    ],
    { 3: `state-${j.state}` },
  );
  tr.append(jobAction(api, j));
  return tr;
};

async function loadHistory(api: Api): Promise<void> {
  const limit = $<HTMLSelectElement>('page-size').value;
  const page = await get<JobPage>(api.jobs, { ...filters, limit, cursor });
  nextCursor = page.nextCursor;
  fill(
    'history',
    page.jobs.map((j) => jobRow(api, j)),
    'No jobs match.',
    9,
  );
  $('page').textContent = `Page ${cursors.length + 1}`;
  $('shown').textContent = `${page.jobs.length} row(s)`;
  $<HTMLButtonElement>('prev').disabled = cursors.length === 0;
  $<HTMLButtonElement>('next').disabled = nextCursor === null;
}

function readFilters(): void {
  const from = $<HTMLInputElement>('filter-from').value;
  const to = $<HTMLInputElement>('filter-to').value;
  filters = {
    ...(from ? { from: toIso(from, false) } : {}),
    ...(to ? { to: toIso(to, true) } : {}),
    queue: $<HTMLSelectElement>('filter-queue').value,
    state: $<HTMLSelectElement>('filter-state').value,
  };
  const range =
    filters.from || filters.to
      ? `Created from ${filters.from ?? 'the start'} to ${filters.to ?? 'now'} (inclusive).`
      : '';
  $('range').textContent = range;
  $('totals-range').textContent = range
    ? `Totals cover jobs created from ${filters.from ?? 'the start'} to ${filters.to ?? 'now'}.`
    : 'Totals cover every job the broker keeps (14 days).';
}

/** The filters, page size and pager buttons; each change starts again from the first page. */
function listen(api: Api): void {
  const firstPage = async () => {
    cursors = [];
    cursor = undefined;
    await Promise.all([loadSummary(api), loadHistory(api)]);
  };
  $<HTMLFormElement>('filters').addEventListener('submit', (event) => {
    event.preventDefault();
    readFilters();
    run(firstPage)();
  });
  $('clear').addEventListener('click', () => {
    for (const id of ['filter-from', 'filter-to']) $<HTMLInputElement>(id).value = '';
    for (const id of ['filter-queue', 'filter-state']) $<HTMLSelectElement>(id).value = '';
    readFilters();
    run(firstPage)();
  });
  $('page-size').addEventListener('change', run(firstPage));
  $('next').addEventListener(
    'click',
    run(async () => {
      if (nextCursor === null) return;
      cursors.push(cursor);
      cursor = nextCursor;
      await loadHistory(api);
    }),
  );
  $('prev').addEventListener(
    'click',
    run(async () => {
      if (cursors.length === 0) return;
      cursor = cursors.pop();
      await loadHistory(api);
    }),
  );
}

export default {
  async open(api) {
    listen(api);
    await Promise.all([loadSummary(api), loadHistory(api)]);
  },
  refresh: loadSummary,
} satisfies SectionScript<keyof Api>;
