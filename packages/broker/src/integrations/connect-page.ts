import type { IntegrationContract } from '@platform/schema/manifest';
import { type HtmlPage, markup } from '../pages/page-shell.ts';
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
  const fields = contract.credentials.map((field, index) => {
    const id = `f_${field.name}`;
    const type = field.secret ? 'password' : 'text';
    const note = field.optional ? markup` <span class="muted">(optional)</span>` : '';
    return markup`${index === 0 ? '' : '\n'}<label for="${id}">${field.label}${note}</label>
<input id="${id}" name="${field.name}" type="${type}" autocomplete="${field.secret ? 'new-password' : 'off'}" maxlength="${CREDENTIAL_VALUE_MAX_LENGTH}"${field.optional ? '' : markup` required`}>`;
  });
  const bind = link.bind
    ? markup`<p class="muted">It will be bound to the slot <b>${link.bind.slot}</b> of ${link.bind.appId}.</p>`
    : '';
  const oauth = contract.authorization;
  const signIn = oauth
    ? markup`<p>Next you sign in at <b>${new URL(oauth.authorizationUrl).host}</b>, which sends you back here.</p>`
    : '';
  const action = oauth ? `Continue to sign in` : replacing ? 'Replace' : 'Connect';
  return {
    title: `Connect ${contract.title}`,
    // The post answers with a redirect to the provider's sign-in.
    ...(oauth ? { formTargets: [new URL(oauth.authorizationUrl).origin] } : {}),
    body: markup`<h1>${replacing ? 'Replace the credentials of' : 'Connect'} ${contract.title}</h1>
<p>${replacing ? 'New values for' : 'The credentials of'} ${whose} to <b>${contract.name}</b>, provided by ${link.providerAppId}. They are stored encrypted and never shown again.</p>
${bind}${signIn}${error ? markup`<p class="error" role="alert">${error}</p>` : ''}
<form method="post">
${fields.length > 0 || oauth ? fields : markup`<p class="muted">This integration asks for no credentials.</p>`}
<button type="submit">${action}</button>
</form>`.toString(),
  };
}

/** The page shown once the connection is stored. */
export function connectedPage(contract: IntegrationContract, bound: string | null): HtmlPage {
  return {
    title: `${contract.title} connected`,
    body: markup`<h1>${contract.title} is connected</h1>
<p>The credentials are stored.${bound ? markup` The slot <b>${bound}</b> uses the connection now.` : ''} You can close this page.</p>`.toString(),
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
    body: markup`<h1>The sign-in was not completed</h1><p>The provider answered: ${reason}. Nothing was stored. Ask for a new link to try again.</p>`.toString(),
  };
}

/** The page of an OAuth sign-in whose tokens could not be obtained or stored (`why`). */
export function signInFailedPage(why: string): HtmlPage {
  return {
    title: 'Connection failed',
    body: markup`<h1>The connection could not be stored</h1><p>${why} Nothing was stored; ask for a new link to try again.</p>`.toString(),
  };
}
