import { ownerApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The console's backups: each with its age, kind and size; Create takes one now, and Restore
 * replaces the app's data with one once the person types the app's id (the thing whose data is
 * replaced), both through the owner API.
 */
export const backupsSection: DashboardSection = {
  id: 'backups-section',
  group: 'backups',
  title: 'Backups',
  api: { backups: ownerApiPaths.backups },
  script: 'backups/backups-section-client.ts',
  html: `<p><button type="button" id="backup-create-button">Create backup</button> <span id="backup-status" role="status"></span></p>
<table id="backups"><thead><tr><th>Taken</th><th>Age</th><th>Kind</th><th>Size</th><th>Files</th><th>Id</th><th>Action</th></tr></thead><tbody></tbody></table>
<form id="backup-restore" hidden>
<h3 id="backup-restore-title">Restore backup <code id="backup-restore-id"></code></h3>
<p>Restoring replaces all of the app's data with this backup: rows and files written since it was taken are gone. The app answers "restoring" for a moment while the database is swapped.</p>
<p><label for="backup-restore-confirm">Type the app id <code id="backup-restore-app"></code> to confirm</label>&#32;
<input id="backup-restore-confirm" autocomplete="off" spellcheck="false" required></p>
<p><button type="submit" id="backup-restore-button" disabled>Restore</button> <button type="button" id="backup-restore-cancel">Cancel</button></p>
</form>
<p class="muted">From a terminal: <code>platform backups create</code>, <code>platform backups list</code>, <code>platform backups restore &lt;id&gt;</code>.</p>`,
};
