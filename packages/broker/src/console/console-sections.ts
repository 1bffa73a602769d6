import { consoleApiPaths, jobsApiPaths, ownerApiPaths } from '../http/paths.ts';
import { chartFigure } from '../pages/dashboard/chart-figure.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The console's Overview: counts of the last hour (Function calls, failures, latency
 * percentiles, requests and server errors) and a small chart of calls per minute, drawn as SVG
 * by the section's script.
 */
export const overviewSection: DashboardSection = {
  group: 'overview',
  id: 'overview-section',
  title: 'The last hour',
  api: { overview: consoleApiPaths.overview },
  script: 'console/overview-client.ts',
  style: `.cards{display:flex;gap:.75rem;flex-wrap:wrap}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5rem .9rem;min-width:7rem}
.card b{display:block;font-size:1.4rem}.card span{color:#555;font-size:.85rem}`,
  html: `<div class="cards">
<div class="card"><b id="ov-functions">-</b><span>Functions</span></div>
<div class="card"><b id="ov-calls">-</b><span>calls</span></div>
<div class="card"><b id="ov-failed">-</b><span>failed calls</span></div>
<div class="card"><b id="ov-p50">-</b><span>p50 latency</span></div>
<div class="card"><b id="ov-p99">-</b><span>p99 latency</span></div>
<div class="card"><b id="ov-requests">-</b><span>requests</span></div>
<div class="card"><b id="ov-errors">-</b><span>5xx answers</span></div>
</div>
${chartFigure('ov-chart', 'Function calls per minute over the last hour:', ['ok', 'failed'])}`,
};

/**
 * The console's Logs: every Function's log entries and each request's line, filtered by
 * Function, level, text and time, with a live tail while the panel is open. A request id shows
 * every line of that request. Lines are redacted as the terminal's are.
 */
export const logsSection: DashboardSection = {
  group: 'logs',
  id: 'logs-section',
  title: 'Logs',
  api: { logs: consoleApiPaths.logs, stream: consoleApiPaths.logStream },
  script: 'console/logs-client.ts',
  style: `.level-warn{color:#8a5a00}.level-error{color:#a4161a}#log-lines td{font-family:ui-monospace,monospace;font-size:.78rem}
#log-lines button{font:inherit;padding:0 .3rem}`,
  html: `<form class="filters" id="log-filters">
<label>Function<input id="log-function" list="log-function-names" autocomplete="off"></label>
<datalist id="log-function-names"></datalist>
<label>Level at least<select id="log-level"><option value="">any</option><option>debug</option><option>info</option><option>warn</option><option>error</option></select></label>
<label>Text<input id="log-text" autocomplete="off"></label>
<label>Request id<input id="log-request" autocomplete="off"></label>
<label>From (local time)<input type="datetime-local" id="log-from" step="1"></label>
<label>To (local time)<input type="datetime-local" id="log-to" step="1"></label>
<button type="submit" id="log-apply">Apply</button><button type="button" id="log-clear">Clear</button>
<label><span>Live tail</span><input type="checkbox" id="log-live" checked></label>
</form>
<p class="muted" id="log-state" role="status"></p>
<table id="log-lines"><thead><tr><th>Time</th><th>Level</th><th>Function</th><th>Line</th><th>Request</th></tr></thead><tbody></tbody></table>
<p class="muted" id="log-bound"></p>`,
};

/**
 * The console's Functions: each Function with its access level, the queues and cron schedules
 * that call it, and its recent calls; and the runner, the twin of `platform invoke`: a
 * Function, JSON input and optionally a test user, answered with the output, the call's log
 * lines and its duration.
 */
export const functionsSection: DashboardSection = {
  group: 'functions',
  id: 'functions-section',
  title: 'Functions',
  api: {
    functions: consoleApiPaths.functions,
    cron: jobsApiPaths.cron,
    summary: jobsApiPaths.summary,
    invoke: ownerApiPaths.invoke,
    logs: consoleApiPaths.logs,
  },
  script: 'console/functions-client.ts',
  style: `#fn-input{width:100%;min-height:6rem;font-family:ui-monospace,monospace}
.runner{background:#fff;border:1px solid #ddd;padding:.5rem .9rem;margin:.75rem 0}`,
  html: `<table id="fn-list"><thead><tr><th>Function</th><th>Access</th><th>Called by</th><th>Recent calls</th><th>Action</th></tr></thead><tbody></tbody></table>
<form class="runner" id="fn-run">
<h3 id="fn-run-title">Run a Function</h3>
<p class="filters"><label>Function<select id="fn-name"></select></label>
<label>As user (UUID, empty for anonymous)<input id="fn-user" autocomplete="off" size="38"></label></p>
<label for="fn-input">Input (JSON)</label>
<textarea id="fn-input">{}</textarea>
<p><button type="submit" id="fn-run-button">Run</button> <span id="fn-duration" class="muted" role="status"></span></p>
<h3>Output</h3><pre id="fn-output"></pre>
<h3>Log lines of the call</h3><pre id="fn-logs"></pre>
</form>`,
};
