// The dashboard's Organisation section, in the browser.
import {
  $,
  fill,
  get,
  row,
  type SectionScript,
  showApps,
} from '../pages/dashboard/dashboard-client-kit.ts';

/** The organisation's apps and members; the section stays hidden where the broker has none. */
async function loadOrganisation(api: { readonly organisation: string }): Promise<void> {
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
  // The console's header switches between the organisation's apps.
  showApps(org.apps);
}

// Opened once: the organisation changes rarely, and a reload shows it anew.
export default { open: loadOrganisation } satisfies SectionScript<'organisation'>;
