import { jobsApiPaths } from '../../http/paths.ts';
import { chartFigure } from '../../pages/dashboard/chart-figure.ts';
import type { DashboardSection } from '../../pages/dashboard/dashboard-section.ts';
import { markup } from '../../pages/page-shell.ts';
import { jobChartStates } from './job-chart.ts';

const option = (value: string, label = value) => markup`<option value="${value}">${label}</option>`;
const states = ['queued', 'running', 'retry_wait', 'succeeded', 'dead_lettered'];

/**
 * The dashboard's Background jobs section (spec 4.5): totals, current depth, a chart of the
 * jobs created per minute over the last hour by their state, each queue's policy, and the history with filters and Previous/Next pages; Retry on a dead-lettered job
 * and Cancel on a pending one, each confirmed first. Only counts, declarations and
 * run states: never payloads, idempotency keys or users.
 */
export const jobsSection: DashboardSection = {
  group: 'jobs',
  id: 'jobs',
  title: 'Background jobs',
  api: {
    jobs: jobsApiPaths.list,
    summary: jobsApiPaths.summary,
    perMinute: jobsApiPaths.perMinute,
    retry: jobsApiPaths.retry,
    cancel: jobsApiPaths.cancel,
  },
  script: 'jobs/dashboard/jobs-client.ts',
  style: `.cards{display:flex;gap:.75rem;flex-wrap:wrap}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5rem .9rem;min-width:7rem}
.card b{display:block;font-size:1.4rem}.card span{color:#555;font-size:.85rem}
.filters{display:flex;gap:.75rem;flex-wrap:wrap;align-items:end;margin:.5rem 0}
.filters label{display:flex;flex-direction:column;font-size:.8rem;color:#444}
.pager{display:flex;gap:.75rem;align-items:center;margin:.5rem 0}
.state-succeeded{color:#1a7f37}.state-dead_lettered{color:#a4161a}.state-retry_wait{color:#9a6700}
`,
  html: markup`<div class="cards" id="totals">
<div class="card"><b id="total-created">-</b><span>created</span></div>
<div class="card"><b id="total-retried">-</b><span>retried</span></div>
<div class="card"><b id="total-succeeded">-</b><span>succeeded</span></div>
<div class="card"><b id="total-failed">-</b><span>failed</span></div>
<div class="card"><b id="depth-total">-</b><span>current depth</span></div>
</div>
<p class="muted" id="depth-detail"></p>
<p class="muted" id="totals-range">Totals cover every job the broker keeps (14 days).</p>
${chartFigure('jobs-chart', 'Jobs created per minute over the last hour, by the state each is in now:', jobChartStates)}
<h3>Queues</h3>
<table id="queues"><thead><tr><th>Queue</th><th>Consumer</th><th>Concurrency</th><th>Max attempts</th>
<th>Retry delay</th><th>Backoff</th><th>Timeout</th><th>Queued</th><th>Retry wait</th><th>Running</th></tr></thead><tbody></tbody></table>
<h3>History</h3>
<form class="filters" id="filters">
<label>Queue<select id="filter-queue">${option('', 'all')}</select></label>
<label>State<select id="filter-state">${option('', 'all')}${states.map((s) => option(s))}</select></label>
<label>Created from (local time)<input type="datetime-local" id="filter-from" step="60"></label>
<label>Created to (local time, inclusive)<input type="datetime-local" id="filter-to" step="60"></label>
<button type="submit" id="apply">Apply</button><button type="button" id="clear">Clear</button>
<label>Rows per page<select id="page-size">${['10', '25', '50', '100'].map((n) => markup`<option${n === '25' ? markup` selected` : ''}>${n}</option>`)}</select></label>
</form>
<p class="muted" id="range"></p>
<table id="history"><thead><tr><th>Created</th><th>Job</th><th>Queue</th><th>State</th><th>Attempt</th>
<th>Next run</th><th>Finished</th><th>Latest error</th><th>Action</th></tr></thead><tbody></tbody></table>
<div class="pager"><button type="button" id="prev">Previous</button><span id="page">Page 1</span>
<button type="button" id="next">Next</button><span class="muted" id="shown"></span></div>
<p class="muted">Jobs and cron show only safe metadata: never payloads, idempotency keys or users.</p>`.toString(),
};

/** The dashboard's cron schedules: each one's latest run and next occurrence, and Run now. */
export const cronSection: DashboardSection = {
  group: 'jobs',
  id: 'cron-section',
  title: 'Cron schedules',
  api: { cron: jobsApiPaths.cron, run: jobsApiPaths.cronRun },
  script: 'jobs/dashboard/cron-client.ts',
  html: `<table id="cron"><thead><tr><th>Name</th><th>Schedule</th><th>Time zone</th><th>Function</th><th>Enabled</th>
<th>Last run</th><th>Last state</th><th>Next run</th><th>Action</th></tr></thead><tbody></tbody></table>`,
};
