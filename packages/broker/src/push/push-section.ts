import { ownerApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The dashboard's Push notifications: what the local push service of `platform dev` received,
 * checked and decrypted as the device would, newest first.
 */
export const pushSection: DashboardSection = {
  group: 'push',
  id: 'push-section',
  title: 'Push notifications',
  api: { deliveries: ownerApiPaths.pushDeliveries },
  script: 'push/push-section-client.ts',
  html: `<p class="muted">What the local push service of platform dev received, after checking the VAPID signature and decrypting it as the device would. Nothing goes to a public push service in development.</p>
<table id="push"><thead><tr><th>Received</th><th>User</th><th>Title</th><th>Body</th><th>URL</th><th>Tag</th></tr></thead><tbody></tbody></table>`,
};
