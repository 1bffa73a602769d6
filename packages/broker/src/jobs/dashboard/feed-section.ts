import { jobsApiPaths } from '../../http/paths.ts';
import type { DashboardSection } from '../../pages/dashboard/dashboard-section.ts';
import { feedSignals } from '../feed/agent-feed.ts';

/**
 * The dashboard's view of the Agent Feed (spec 4.5): what agents read at
 * `GET /v1/apps/{appId}/feed` — the job signals of the last hour, the failure alert and the
 * recent failure events — shown to the developer beside them. Codes and messages only.
 */
export const feedSection: DashboardSection = {
  id: 'agent-feed',
  group: 'jobs',
  title: 'Agent Feed',
  api: { feed: jobsApiPaths.feed },
  script: 'jobs/dashboard/feed-client.ts',
  style: `.alert-firing{color:#a4161a;font-weight:600}.alert-ok{color:#1a7f37}`,
  html: `<p id="feed-alert" role="status"></p>
<div class="cards">${feedSignals
    .map(
      (name) =>
        `<div class="card"><b id="feed-${name.slice('jobs.'.length)}">-</b><span>${name}</span></div>`,
    )
    .join('')}</div>
<p class="muted" id="feed-window"></p>
<table id="feed-failures"><thead><tr><th>Failed at</th><th>Job</th><th>Queue</th><th>State</th><th>Attempt</th><th>Error</th></tr></thead><tbody></tbody></table>`,
};
