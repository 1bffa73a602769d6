import { ownerApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/** The dashboard's backups: when each was taken, why, and its size. */
export const backupsSection: DashboardSection = {
  id: 'backups-section',
  group: 'backups',
  title: 'Backups',
  api: { backups: ownerApiPaths.backups },
  script: 'backups/backups-section-client.ts',
  html: `<table id="backups"><thead><tr><th>Taken</th><th>Kind</th><th>Size</th><th>Files</th><th>Id</th></tr></thead><tbody></tbody></table>
<p class="muted">Take one with <code>platform backups create</code>; restore one with <code>platform backups restore &lt;id&gt;</code>, which replaces the app's data.</p>`,
};
