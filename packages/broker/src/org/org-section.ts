import { orgApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The dashboard's Organisation section: the organisation's apps and members. Hidden where the
 * broker belongs to no organisation (the API answers an error there).
 */
export const orgSection: DashboardSection = {
  group: 'organisation',
  id: 'org-section',
  title: 'Organisation',
  api: { organisation: orgApiPaths.organisation },
  script: 'org/org-section-client.ts',
  hidden: true,
  html: `<table id="org-apps"><thead><tr><th>App</th><th>URL</th></tr></thead><tbody></tbody></table>
<table id="org-members"><thead><tr><th>Member</th><th>Role</th></tr></thead><tbody></tbody></table>`,
};
