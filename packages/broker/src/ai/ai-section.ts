import { ownerApiPaths } from '../http/paths.ts';
import { chartFigure } from '../pages/dashboard/chart-figure.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The dashboard's recent AI calls: a chart of the calls per minute over the last hour, and each
 * call's Function, kind, duration and outcome; the prompt and output
 * only where the developer opted in locally. Never models or keys.
 */
export const aiSection: DashboardSection = {
  group: 'ai',
  id: 'ai-section',
  title: 'AI calls',
  api: { calls: ownerApiPaths.aiCalls, perMinute: ownerApiPaths.aiCallsPerMinute },
  script: 'ai/ai-section-client.ts',
  html: `${chartFigure('ai-chart', 'AI calls per minute over the last hour:', ['ok', 'failed'])}
<table id="ai-calls"><thead><tr><th>Time</th><th>Function</th><th>Call</th><th>Duration</th><th>Outcome</th></tr></thead><tbody></tbody></table>
<p class="muted">The newest 50 of the last 500 calls since the broker started. Never prompts, outputs, models or keys.</p>`,
};
