import { ownerApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The dashboard's recent AI calls: Function, kind, duration and outcome; the prompt and output
 * only where the developer opted in locally. Never models or keys.
 */
export const aiSection: DashboardSection = {
  group: 'ai',
  id: 'ai-section',
  title: 'AI calls',
  api: { calls: ownerApiPaths.aiCalls },
  script: 'ai/ai-section-client.ts',
  html: `<table id="ai-calls"><thead><tr><th>Time</th><th>Function</th><th>Call</th><th>Duration</th><th>Outcome</th></tr></thead><tbody></tbody></table>
<p class="muted">The newest 50 of the last 500 calls since the broker started. Never prompts, outputs, models or keys.</p>`,
};
