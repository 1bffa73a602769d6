import { integrationApiPaths } from '../http/paths.ts';
import { chartFigure } from '../pages/dashboard/chart-figure.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The dashboard's Integration calls: the calls the app made or served (a chart per minute over
 * the last hour, and the newest listed) and the events delivered
 * to its slots, never inputs, outputs, payloads or credentials; Replay on a failed delivery, confirmed
 * first; the slots with their mode, switched live or fake under `platform dev`, confirmed first.
 * Hidden where the broker serves none.
 */
export const integrationSection: DashboardSection = {
  group: 'integrations',
  id: 'integrations-section',
  title: 'Integration calls',
  api: {
    calls: integrationApiPaths.calls,
    perMinute: integrationApiPaths.callsPerMinute,
    events: integrationApiPaths.events,
    replay: integrationApiPaths.eventReplay,
    modes: integrationApiPaths.devModes,
  },
  script: 'integrations/integration-section-client.ts',
  hidden: true,
  html: `<table id="integration-slots"><caption>Slots</caption><thead><tr><th>Slot</th><th>Integration</th><th>Account</th>
<th>Mode</th><th>Action</th></tr></thead><tbody></tbody></table>
<p class="muted">Under platform dev one account: app slot at a time calls its provider for real; the others answer their fakes. In production every call is live.</p>
<h3>Calls</h3>
${chartFigure('integration-chart', 'Integration calls this app made or served per minute over the last hour:', ['ok', 'failed'])}
<table id="integration-calls"><thead><tr><th>Time</th><th>Slot</th><th>Consumer</th><th>Provider</th><th>Operation</th>
<th>Mode</th><th>Duration</th><th>Result</th></tr></thead><tbody></tbody></table>
<p class="muted">The newest 100 calls this app made or served. Never inputs, outputs or credentials.</p>
<h3>Event deliveries</h3>
<table id="integration-events"><thead><tr><th>Time</th><th>Slot</th><th>Type</th><th>Event id</th><th>State</th>
<th>Attempts</th><th>Last error</th><th>Action</th></tr></thead><tbody></tbody></table>
<p class="muted">A failed delivery keeps its payload until its record expires (14 days): Replay delivers it again.</p>`,
};
