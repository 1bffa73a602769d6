import type { IntegrationContract } from '@platform/schema/manifest';
import { escapeHtml } from '../kernel/escape-html.ts';
import type { HtmlPage } from '../pages/page-shell.ts';
import type { ConnectLink } from './connect-links.ts';
import { CREDENTIAL_VALUE_MAX_LENGTH } from './credential-values.ts';

/**
 * The page where a person enters a connection's credentials: one field per declared
 * credential, `secret` ones as password fields that browsers neither show nor offer to fill,
 * optional ones marked. It never holds a value: after a refused submission the fields are
 * empty again, and only the reason is shown.
 */
export function connectPage(
  contract: IntegrationContract,
  link: ConnectLink,
  error?: string,
): HtmlPage {
  const replacing = link.connectionId !== null;
  const whose =
    link.kind === 'organisation' ? 'an organisation connection' : 'your personal connection';
  const fields = contract.credentials
    .map((field) => {
      const id = `f_${field.name}`;
      const type = field.secret ? 'password' : 'text';
      const required = field.optional ? '' : ' required';
      const note = field.optional ? ' <span class="muted">(optional)</span>' : '';
      return `<label for="${id}">${escapeHtml(field.label)}${note}</label>
<input id="${id}" name="${escapeHtml(field.name)}" type="${type}" autocomplete="${field.secret ? 'new-password' : 'off'}" maxlength="${CREDENTIAL_VALUE_MAX_LENGTH}"${required}>`;
    })
    .join('\n');
  const bind = link.bind
    ? `<p class="muted">It will be bound to the slot <b>${escapeHtml(link.bind.slot)}</b> of ${escapeHtml(link.bind.appId)}.</p>`
    : '';
  const oauth = contract.authorization;
  const signIn = oauth
    ? `<p>Next you sign in at <b>${escapeHtml(new URL(oauth.authorizationUrl).host)}</b>, which sends you back here.</p>`
    : '';
  const action = oauth ? `Continue to sign in` : replacing ? 'Replace' : 'Connect';
  return {
    title: `Connect ${contract.title}`,
    // The post answers with a redirect to the provider's sign-in.
    ...(oauth ? { formTargets: [new URL(oauth.authorizationUrl).origin] } : {}),
    body: `<h1>${replacing ? 'Replace the credentials of' : 'Connect'} ${escapeHtml(contract.title)}</h1>
<p>${replacing ? 'New values for' : 'The credentials of'} ${whose} to <b>${escapeHtml(contract.name)}</b>, provided by ${escapeHtml(link.providerAppId)}. They are stored encrypted and never shown again.</p>
${bind}${signIn}${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post">
${fields || (oauth ? '' : '<p class="muted">This integration asks for no credentials.</p>')}
<button type="submit">${action}</button>
</form>`,
  };
}

/** The page shown once the connection is stored. */
export function connectedPage(contract: IntegrationContract, bound: string | null): HtmlPage {
  return {
    title: `${contract.title} connected`,
    body: `<h1>${escapeHtml(contract.title)} is connected</h1>
<p>The credentials are stored.${bound ? ` The slot <b>${escapeHtml(bound)}</b> uses the connection now.` : ''} You can close this page.</p>`,
  };
}

/** The page of a link that was used already or has expired. */
export const linkUnusablePage: HtmlPage = {
  title: 'Link expired',
  body: '<h1>This link cannot be used</h1><p>It was used already or has expired. Ask for a new one.</p>',
};

/**
 * The page of an OAuth sign-in that comes back to a browser other than the one that submitted
 * the connect page (a provider address someone passed on): nothing is stored, and the sign-in
 * is spent.
 */
export const otherBrowserPage: HtmlPage = {
  title: 'Sign-in started elsewhere',
  body: '<h1>This sign-in belongs to another browser</h1><p>It was started in a different browser, so it cannot be finished here, and nothing was stored. Ask for a new connect link and open it in the browser you sign in with.</p>',
};

/** The page of an OAuth sign-in the person declined or the provider refused (`reason`). */
export function signInIncompletePage(reason: string): HtmlPage {
  return {
    title: 'Sign-in not completed',
    body: `<h1>The sign-in was not completed</h1><p>The provider answered: ${escapeHtml(reason)}. Nothing was stored. Ask for a new link to try again.</p>`,
  };
}

/** The page of an OAuth sign-in whose tokens could not be obtained or stored (`why`). */
export function signInFailedPage(why: string): HtmlPage {
  return {
    title: 'Connection failed',
    body: `<h1>The connection could not be stored</h1><p>${escapeHtml(why)} Nothing was stored; ask for a new link to try again.</p>`,
  };
}
