import { ownerApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The console's Access section (spec 5.3): the app access tokens with their state and last use,
 * a form that makes one, and Revoke. Making a token answers a one-time reveal link to the
 * owner's reveal page, the only place a value is ever shown (once); the list shows a hint at
 * most. Every change goes through the owner API that `platform app access-token` uses.
 */
export const accessSection: DashboardSection = {
  group: 'access',
  id: 'access-section',
  title: 'App access tokens',
  api: { tokens: ownerApiPaths.tokens },
  script: 'auth/access-section-client.ts',
  html: `<form class="filters" id="token-create">
<label>Name of the new token<input id="token-name" maxlength="100" required value="console"></label>
<button type="submit" id="token-create-button">Create token</button>
</form>
<p id="token-reveal" hidden>Token <b id="token-made"></b> is made. <a id="token-reveal-link" href="#access">Reveal its value</a>: the link works once, for 15 minutes, for the owner signed in; the value is never shown again.</p>
<p id="token-status" class="muted" role="status"></p>
<table id="tokens"><thead><tr><th>Name</th><th>Token</th><th>State</th><th>Created</th><th>Last used</th><th>Action</th></tr></thead><tbody></tbody></table>
<p class="muted">A token's value is shown once, on its reveal page; here only its first characters once revealed.</p>`,
};
