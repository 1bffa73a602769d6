// The dashboard's browser script, bundled by esbuild when the page first asks for it. It only
// reads the broker's JSON API and builds DOM nodes with textContent (no HTML from data).
import type { IntegrationCallRecord as IntegrationCall } from '../../integrations/integration-audit.ts';
import type { EventDelivery } from '../../integrations/integration-events.ts';
import type { MailLogEntry } from '../../outbox/mail-log.ts';
import type { CronSummary } from '../cron/cron-summary.ts';
import type { JobPage } from '../job-history.ts';
import type { Job } from '../job-rows.ts';
import type { JobDepth, JobSummary } from '../job-summary.ts';

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

const api = document.body.dataset as {
  jobs: string;
  summary: string;
  cron: string;
  aiCalls: string;
  mail: string;
  push: string;
  organisation: string;
  integrationCalls: string;
  integrationEvents: string;
};
const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** An instant in this browser's time zone, `YYYY-MM-DD HH:mm:ss`. */
function localTime(iso: string | null): string {
  if (iso === null) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

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

async function get<T>(path: string, query: Record<string, string | undefined>): Promise<T> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const response = await fetch(`${path}${params.size > 0 ? `?${params}` : ''}`, {
    headers: { accept: 'application/json' },
  });
  const body = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok) {
    throw new Error(`${body.error?.code ?? response.status}: ${body.error?.message ?? ''}`);
  }
  return body;
}

function row(cells: readonly (string | number)[], classes: Record<number, string> = {}) {
  const tr = document.createElement('tr');
  cells.forEach((cell, i) => {
    const td = document.createElement('td');
    td.textContent = String(cell);
    if (typeof cell === 'number') td.className = 'num';
    if (classes[i]) td.className = classes[i];
    tr.append(td);
  });
  return tr;
}

const fill = (id: string, rows: HTMLTableRowElement[], empty: string, columns: number) => {
  const body = $<HTMLTableElement>(id).tBodies[0] as HTMLTableSectionElement;
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = document.createElement('td');
    td.colSpan = columns;
    td.className = 'muted';
    td.textContent = empty;
    tr.append(td);
    rows = [tr];
  }
  body.replaceChildren(...rows);
};

const showError = (error: unknown) => {
  const p = $('error');
  p.hidden = error === undefined;
  p.textContent = error instanceof Error ? error.message : error ? String(error) : '';
};

// History state: the cursors of the pages before the current one (Previous pops one).
let filters: { from?: string; to?: string; queue?: string; state?: string } = {};
let cursors: (string | undefined)[] = [];
let cursor: string | undefined;
let nextCursor: string | null = null;

const depthText = (d: JobDepth) =>
  `Depth now: ${d.queued} queued, ${d.retryWait} waiting for a retry, ${d.running} running.`;

async function loadSummary(): Promise<void> {
  const summary = await get<JobSummary>(api.summary, { from: filters.from, to: filters.to });
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

async function loadCron(): Promise<void> {
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

async function loadMail(): Promise<void> {
  const { emails } = await get<{ emails: MailLogEntry[] }>(api.mail, {});
  fill(
    'mail',
    emails.map((e) =>
      row(
        [
          localTime(e.createdAt),
          e.direction === 'inbound' ? 'received' : 'sent',
          e.from,
          e.to.join(', '),
          e.subject,
          e.functionName ?? '',
          e.direction === 'inbound'
            ? e.attachments.map((a) => `${a.name} (${a.size} bytes)`).join(', ')
            : '',
        ],
        { 1: `mail-${e.direction}` },
      ),
    ),
    'No email sent or received yet.',
    7,
  );
}

interface PushDelivery {
  readonly receivedAt: string;
  readonly userId: string | null;
  readonly payload: { title?: unknown; body?: unknown; url?: unknown; tag?: unknown } | string;
}

async function loadPush(): Promise<void> {
  const { deliveries } = await get<{ deliveries: PushDelivery[] }>(api.push, { limit: '50' });
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  fill(
    'push',
    deliveries.map((d) => {
      const p = typeof d.payload === 'string' ? { title: d.payload } : d.payload;
      return row([
        localTime(d.receivedAt),
        d.userId ?? '',
        text(p.title),
        text(p.body),
        text(p.url),
        text(p.tag),
      ]);
    }),
    'No notification received yet: subscribe a device, then send from a Function.',
    6,
  );
}

const jobRow = (j: Job) =>
  row(
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

async function loadHistory(): Promise<void> {
  const limit = $<HTMLSelectElement>('page-size').value;
  const page = await get<JobPage>(api.jobs, { ...filters, limit, cursor });
  nextCursor = page.nextCursor;
  fill('history', page.jobs.map(jobRow), 'No jobs match.', 8);
  $('page').textContent = `Page ${cursors.length + 1}`;
  $('shown').textContent = `${page.jobs.length} row(s)`;
  $<HTMLButtonElement>('prev').disabled = cursors.length === 0;
  $<HTMLButtonElement>('next').disabled = nextCursor === null;
}

const run = (work: () => Promise<void>) => () => {
  work().then(() => showError(undefined), showError);
};

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

/** One AI call as the broker API lists it (no model or key; prompt and output when opted in). */
interface AiCall {
  at: string;
  functionName: string;
  kind: string;
  durationMs: number;
  outcome: string;
  content?: { input: string; output?: string };
}

// The prompt and output under the call's row, only when the developer opted in locally.
function contentRow(content: NonNullable<AiCall['content']>): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const td = document.createElement('td');
  td.colSpan = 5;
  td.className = 'ai-content';
  for (const [label, text] of [
    ['Prompt', content.input],
    ['Output', content.output],
  ] as const) {
    if (text === undefined) continue;
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = label;
    const pre = document.createElement('pre');
    pre.textContent = text;
    details.append(summary, pre);
    td.append(details);
  }
  tr.append(td);
  return tr;
}

async function loadAiCalls(): Promise<void> {
  const { calls } = await get<{ calls: AiCall[] }>(api.aiCalls, { limit: '50' });
  $('ai-calls')
    .querySelector('tbody')
    ?.replaceChildren(
      ...calls.flatMap((call) => [
        row(
          [localTime(call.at), call.functionName, call.kind, `${call.durationMs} ms`, call.outcome],
          call.outcome === 'ok' ? {} : { 4: 'error' },
        ),
        ...(call.content ? [contentRow(call.content)] : []),
      ]),
    );
}

/**
 * The app's integration calls and event deliveries; the section stays hidden where the broker
 * serves none.
 */
async function loadIntegrationCalls(): Promise<void> {
  let calls: IntegrationCall[];
  let deliveries: EventDelivery[];
  try {
    ({ calls } = await get<{ calls: IntegrationCall[] }>(api.integrationCalls, {}));
    ({ deliveries } = await get<{ deliveries: EventDelivery[] }>(api.integrationEvents, {}));
  } catch {
    return;
  }
  fill(
    'integration-events',
    deliveries.map((d) =>
      row(
        [localTime(d.createdAt), d.slot, d.type, d.eventId, d.state, d.attempts, d.lastError ?? ''],
        d.state === 'delivered' ? {} : { 4: 'error' },
      ),
    ),
    'No events delivered yet.',
    7,
  );
  fill(
    'integration-calls',
    calls.map((c) =>
      row(
        [
          localTime(c.at),
          c.slot,
          c.consumerAppId,
          c.providerAppId,
          c.operation,
          c.mode,
          `${c.durationMs} ms`,
          c.result,
        ],
        c.result === 'ok' ? {} : { 7: 'error' },
      ),
    ),
    'No integration calls yet.',
    8,
  );
  $('integrations-section').hidden = false;
}

/** The organisation's apps and members; the section stays hidden where the broker has none. */
async function loadOrganisation(): Promise<void> {
  let org: { apps: { appId: string; url: string }[]; members: { email: string; role: string }[] };
  try {
    org = await get(api.organisation, {});
  } catch {
    return;
  }
  fill(
    'org-apps',
    org.apps.map((app) => row([app.appId, app.url])),
    'No apps.',
    2,
  );
  fill(
    'org-members',
    org.members.map((m) => row([m.email, m.role])),
    'No members yet.',
    2,
  );
  $('org-section').hidden = false;
}

const firstPage = async () => {
  cursors = [];
  cursor = undefined;
  await Promise.all([loadSummary(), loadHistory()]);
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
    await loadHistory();
  }),
);
$('prev').addEventListener(
  'click',
  run(async () => {
    if (cursors.length === 0) return;
    cursor = cursors.pop();
    await loadHistory();
  }),
);

$('tz').textContent = Intl.DateTimeFormat().resolvedOptions().timeZone;
run(async () => {
  await Promise.all([
    loadSummary(),
    loadCron(),
    loadHistory(),
    loadAiCalls(),
    loadMail(),
    loadPush(),
    loadOrganisation(),
    loadIntegrationCalls(),
  ]);
  document.body.dataset.ready = 'true';
})();
// Totals, depth, cron and mail move on their own; the history stays put until asked (stable
// pages).
setInterval(
  run(() =>
    Promise.all([
      loadSummary(),
      loadCron(),
      loadAiCalls(),
      loadMail(),
      loadPush(),
      loadIntegrationCalls(),
    ]).then(() => undefined),
  ),
  5000,
);
