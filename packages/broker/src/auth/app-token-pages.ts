import { type HtmlPage, hidden, markup } from '../pages/page-shell.ts';
import type { AppTokenRequestView } from './app-token-requests.ts';
import type { AppTokenInfo } from './app-tokens.ts';

/** Where the owner's pages for app access tokens live, under `{auth_url}`. */
export const ACCESS_TOKEN_PAGES = '/_platform/auth/access-tokens';

/**
 * The approval page of a token request: the approver types the code their terminal shows, then
 * approves (or declines). The page never shows the code itself: an approver who only compares
 * tends to click through, and one sent somebody else's link has no terminal to read a code from
 * (RFC 8628, 5.4). `error` explains a code that did not match.
 */
export function approveRequestPage(input: {
  readonly app: string;
  readonly request: AppTokenRequestView;
  readonly csrf: string;
  readonly error?: string | undefined;
}): HtmlPage {
  const { request } = input;
  if (request.state !== 'pending') {
    const outcome = {
      approved: 'approved; the terminal that asked has the credential or is about to take it',
      claimed: 'approved, and the terminal that asked has taken the credential',
      denied: 'declined',
      expired: 'expired before anyone approved it',
    }[request.state];
    return {
      title: 'Request',
      body: markup`<h1 id="decided" data-state="${request.state}">Request ${request.name}</h1><p>This request was ${outcome}.</p>`.toString(),
    };
  }
  const asked =
    request.kind === 'account'
      ? markup`<h1>Sign a terminal in as you?</h1>
<p>A terminal running <code>platform login</code> asks for an account credential named <b>${request.name}</b>.
The platform CLI will act as you at this organisation's service: say who you are, list the organisation's
members and apps, and list or revoke its own sign-ins. It never gets your browser session;
<code>platform logout</code> revokes it.</p>`
      : request.kind === 'agent'
        ? markup`<h1>Let a coding agent act for you on ${input.app}?</h1>
<p>A terminal asks for an agent credential named <b>${request.name}</b>. The agent will use the agent tools
for you on this app (read its jobs and integration events, switch integrations to live, inject events, invoke
Functions) and, if you own the app, bind existing connections. It never gets your browser session and never
enters credential values.</p>`
        : markup`<h1>Approve an app access token for ${input.app}?</h1>
<p>A terminal asks for an app access token named <b>${request.name}</b>. It acts as you, the owner,
on the app's data, files and Functions (never on its settings).</p>`;
  const error =
    input.error === undefined ? '' : markup`<p class="error" role="alert">${input.error}</p>`;
  return {
    title: {
      account: 'Sign a terminal in',
      agent: 'Approve a coding agent',
      app_token: 'Approve an app access token',
    }[request.kind],
    body: markup`${asked}${error}
<form method="post">${hidden('csrf', input.csrf)}
<label for="code">Type the code your terminal shows (like BCDF-GHJK). If you did not start this in a terminal of your own, decline.</label>
<input id="code" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20">
<button id="approve" name="decision" value="approve">Approve</button>
<button id="decline" name="decision" value="decline" formnovalidate>Decline</button></form>`.toString(),
  };
}

/** The review page of a reveal link: the value is made only by pressing the button. */
export function revealReviewPage(input: {
  readonly app: string;
  readonly token: AppTokenInfo;
  readonly secret: string;
  readonly csrf: string;
}): HtmlPage {
  return {
    title: 'Reveal an app access token',
    body: markup`<h1>App access token ${input.token.name}</h1>
<p>The token for ${input.app} is shown once, on the next page. Have somewhere safe to keep it.</p>
<form method="post" action="${ACCESS_TOKEN_PAGES}/reveal">${hidden('csrf', input.csrf)}${hidden('secret', input.secret)}
<button id="reveal">Reveal the token</button></form>`.toString(),
  };
}

/** The one page that shows a token's value. */
export function revealedPage(input: { readonly name: string; readonly token: string }): HtmlPage {
  return {
    title: 'Your app access token',
    body: markup`<h1>App access token ${input.name}</h1>
<p>Copy it now: it is not shown again. Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<p><code id="token">${input.token}</code></p>`.toString(),
  };
}

/** Why a reveal link shows nothing. */
export const revealProblems = {
  unknown: { status: 404, title: 'This link is not valid', text: 'Ask for a new token.' },
  used: {
    status: 410,
    title: 'This link was already used',
    text: 'A token is shown once. Revoke it and create a new one if it was not kept.',
  },
  expired: {
    status: 410,
    title: 'This link has expired',
    text: 'Revoke the token and create a new one.',
  },
} as const;
