import { escapeHtml } from '../../kernel/escape-html.ts';

/** What the page needs to know; the script reads the API paths from `data-*` attributes. */
export interface DashboardPage {
  readonly appId: string;
  readonly api: {
    readonly jobs: string;
    readonly summary: string;
    readonly cron: string;
    /** The broker API's recent AI calls. */
    readonly aiCalls: string;
    /** The audit of integration calls the app made or served. */
    readonly integrationCalls: string;
    /** The integration event deliveries to the app's slots. */
    readonly integrationEvents: string;
    /** The outbox: sent and received email. */
    readonly mail: string;
    /** Notifications the local push service received (development). */
    readonly push: string;
    /** The organisation: its apps and members. */
    readonly organisation: string;
  };
  readonly script: string;
  /** The Content Security Policy nonce of the inline style. */
  readonly nonce: string;
}

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f6f6f8}
header{background:#1b1b1f;color:#fff;padding:.75rem 1.5rem}header h1{font-size:1.1rem;margin:0}
main{padding:1rem 1.5rem;max-width:80rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .4rem}
.cards{display:flex;gap:.75rem;flex-wrap:wrap}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5rem .9rem;min-width:7rem}
.card b{display:block;font-size:1.4rem}.card span{color:#555;font-size:.85rem}
table{border-collapse:collapse;background:#fff;width:100%;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eee}td.num{text-align:right}code{font-size:.8rem}
.filters{display:flex;gap:.75rem;flex-wrap:wrap;align-items:end;margin:.5rem 0}
.filters label{display:flex;flex-direction:column;font-size:.8rem;color:#444}
.pager{display:flex;gap:.75rem;align-items:center;margin:.5rem 0}
.muted{color:#666;font-size:.8rem}.error{color:#a4161a}
.state-succeeded{color:#1a7f37}.state-dead_lettered{color:#a4161a}.state-retry_wait{color:#9a6700}
`;

/**
 * The dashboard's HTML: the Background jobs section (totals, depth, queue policy, history with
 * filters and Previous/Next pages), the cron schedules, the recent AI calls, and the email sent
 * and received. Empty until the script fills it.
 */
export function dashboardHtml(page: DashboardPage): string {
  const option = (value: string, label = value) =>
    `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`;
  const states = ['queued', 'running', 'retry_wait', 'succeeded', 'dead_lettered'];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(page.appId)}: dashboard</title><style nonce="${escapeHtml(page.nonce)}">${style}</style></head>
<body data-jobs="${escapeHtml(page.api.jobs)}" data-summary="${escapeHtml(page.api.summary)}" data-cron="${escapeHtml(page.api.cron)}" data-ai-calls="${escapeHtml(page.api.aiCalls)}" data-mail="${escapeHtml(page.api.mail)}" data-push="${escapeHtml(page.api.push)}" data-organisation="${escapeHtml(page.api.organisation)}" data-integration-calls="${escapeHtml(page.api.integrationCalls)}" data-integration-events="${escapeHtml(page.api.integrationEvents)}">
<header><h1>App ${escapeHtml(page.appId)}: dashboard</h1></header>
<main>
<p id="error" class="error" role="alert" hidden></p>
<section id="jobs" aria-labelledby="jobs-title">
<h2 id="jobs-title">Background jobs</h2>
<div class="cards" id="totals">
<div class="card"><b id="total-created">-</b><span>created</span></div>
<div class="card"><b id="total-retried">-</b><span>retried</span></div>
<div class="card"><b id="total-succeeded">-</b><span>succeeded</span></div>
<div class="card"><b id="total-failed">-</b><span>failed</span></div>
<div class="card"><b id="depth-total">-</b><span>current depth</span></div>
</div>
<p class="muted" id="depth-detail"></p>
<p class="muted" id="totals-range">Totals cover every job the broker keeps (14 days).</p>
<h3>Queues</h3>
<table id="queues"><thead><tr><th>Queue</th><th>Consumer</th><th>Concurrency</th><th>Max attempts</th>
<th>Retry delay</th><th>Backoff</th><th>Timeout</th><th>Queued</th><th>Retry wait</th><th>Running</th></tr></thead><tbody></tbody></table>
<h3>History</h3>
<form class="filters" id="filters">
<label>Queue<select id="filter-queue">${option('', 'all')}</select></label>
<label>State<select id="filter-state">${option('', 'all')}${states.map((s) => option(s)).join('')}</select></label>
<label>Created from (local time)<input type="datetime-local" id="filter-from" step="60"></label>
<label>Created to (local time, inclusive)<input type="datetime-local" id="filter-to" step="60"></label>
<button type="submit" id="apply">Apply</button><button type="button" id="clear">Clear</button>
<label>Rows per page<select id="page-size">${['10', '25', '50', '100'].map((n) => `<option${n === '25' ? ' selected' : ''}>${n}</option>`).join('')}</select></label>
</form>
<p class="muted" id="range"></p>
<table id="history"><thead><tr><th>Created</th><th>Job</th><th>Queue</th><th>State</th><th>Attempt</th>
<th>Next run</th><th>Finished</th><th>Latest error</th></tr></thead><tbody></tbody></table>
<div class="pager"><button type="button" id="prev">Previous</button><span id="page">Page 1</span>
<button type="button" id="next">Next</button><span class="muted" id="shown"></span></div>
</section>
<section id="cron-section" aria-labelledby="cron-title">
<h2 id="cron-title">Cron schedules</h2>
<table id="cron"><thead><tr><th>Name</th><th>Schedule</th><th>Time zone</th><th>Function</th><th>Enabled</th>
<th>Last run</th><th>Last state</th><th>Next run</th></tr></thead><tbody></tbody></table>
</section>
<section id="ai-section" aria-labelledby="ai-title">
<h2 id="ai-title">AI calls</h2>
<table id="ai-calls"><thead><tr><th>Time</th><th>Function</th><th>Call</th><th>Duration</th><th>Outcome</th></tr></thead><tbody></tbody></table>
<p class="muted">The newest 50 of the last 500 calls since the broker started. Never prompts, outputs, models or keys.</p>
</section>
<section id="integrations-section" aria-labelledby="integrations-title" hidden>
<h2 id="integrations-title">Integration calls</h2>
<table id="integration-calls"><thead><tr><th>Time</th><th>Slot</th><th>Consumer</th><th>Provider</th><th>Operation</th>
<th>Mode</th><th>Duration</th><th>Result</th></tr></thead><tbody></tbody></table>
<p class="muted">The newest 100 calls this app made or served. Never inputs, outputs or credentials.</p>
<h3>Event deliveries</h3>
<table id="integration-events"><thead><tr><th>Time</th><th>Slot</th><th>Type</th><th>Event id</th><th>State</th>
<th>Attempts</th><th>Last error</th></tr></thead><tbody></tbody></table>
</section>
<section id="mail-section" aria-labelledby="mail-title">
<h2 id="mail-title">Email</h2>
<p class="muted">Sent (captured, never delivered) and received (taken by the inbound email Function), newest first; bodies are in <code>platform outbox</code>.</p>
<table id="mail"><thead><tr><th>Time</th><th>Direction</th><th>From</th><th>To</th><th>Subject</th>
<th>Function</th><th>Attachments</th></tr></thead><tbody></tbody></table>
</section>
<p class="muted">Times are shown in this browser's time zone (<span id="tz"></span>). Jobs and cron show only safe metadata: never payloads, idempotency keys or users.</p>
<section id="org-section" aria-labelledby="org-title" hidden>
<h2 id="org-title">Organisation</h2>
<table id="org-apps"><thead><tr><th>App</th><th>URL</th></tr></thead><tbody></tbody></table>
<table id="org-members"><thead><tr><th>Member</th><th>Role</th></tr></thead><tbody></tbody></table>
</section>
<section id="push-section" aria-labelledby="push-title">
<h2 id="push-title">Push notifications</h2>
<p class="muted">What the local push service of platform dev received, after checking the VAPID signature and decrypting it as the device would. Nothing goes to a public push service in development.</p>
<table id="push"><thead><tr><th>Received</th><th>User</th><th>Title</th><th>Body</th><th>URL</th><th>Tag</th></tr></thead><tbody></tbody></table>
</section>
</main>
<script src="${escapeHtml(page.script)}"></script>
</body></html>`;
}
