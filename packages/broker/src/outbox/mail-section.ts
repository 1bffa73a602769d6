import { ownerApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The dashboard's Email section: mail sent (captured, never delivered) and received (taken by
 * the inbound email Function) side by side, newest first, as text; a sent one can be delivered to
 * the inbound email Function after a confirmation. Bodies stay in the CLI.
 */
export const mailSection: DashboardSection = {
  group: 'email',
  id: 'mail-section',
  title: 'Email',
  api: { mail: `${ownerApiPaths.outbox}?limit=50`, receive: ownerApiPaths.outboxReceive },
  script: 'outbox/mail-section-client.ts',
  html: `<p class="muted">Sent (captured, never delivered) and received (taken by the inbound email Function), newest first; bodies are in <code>platform outbox</code>.</p>
<table id="mail"><thead><tr><th>Time</th><th>Direction</th><th>From</th><th>To</th><th>Subject</th>
<th>Function</th><th>Attachments</th><th>Action</th></tr></thead><tbody></tbody></table>
<p class="muted">Deliver to inbound hands a sent email to the inbound email Function as if it had arrived (at its recipients that are the app's addresses, else the app's first address).</p>`,
};
