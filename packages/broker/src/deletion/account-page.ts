import { limits } from '@platform/schema';
import { ACCOUNT_PAGE, AUTH_BASE } from '../http/paths.ts';
import { inMinutes } from '../kernel/clock.ts';
import type { HtmlPage } from '../pages/page-shell.ts';
import { hidden, markup } from '../pages/page-shell.ts';

/**
 * The account page: the address, a link to the preferences, and account deletion, which
 * offers its form only to a browser signed in within `limits.recentSignInSeconds`.
 */
export function accountPage(input: {
  readonly email: string;
  readonly csrf: string;
  readonly recentSignIn: boolean;
  /** Whether a live invitation into the organisation waits for this account. */
  readonly invited?: boolean;
  readonly error?: { readonly code: string; readonly message: string };
}): HtmlPage {
  const error = input.error
    ? markup`<p class="error" role="alert" id="error" data-code="${input.error.code}">${input.error.message}</p>`
    : '';
  const form = input.recentSignIn
    ? markup`<form method="post" action="${ACCOUNT_PAGE}/delete">${hidden('csrf', input.csrf)}
<label for="email">Type your address, ${input.email}, to confirm</label>
<input id="email" name="email" type="email" autocomplete="off" required>
<button id="delete" type="submit">Delete my account</button></form>`
    : markup`<p id="sign-in-again">Deleting your account needs a sign-in within the last ${inMinutes(limits.recentSignInSeconds)}.
<a href="${AUTH_BASE}/sign-out?returnTo=${encodeURIComponent(ACCOUNT_PAGE)}">Sign out</a>, sign in again and come back.</p>`;
  const invitation = input.invited
    ? markup`<h2>Invitation</h2><p id="invitation">An administrator invited you to join their organisation. Joining moves
your account from your personal company into the organisation; its administrators then manage your membership.</p>
<form method="post" action="${ACCOUNT_PAGE}/join">${hidden('csrf', input.csrf)}<button id="join" type="submit">Join the organisation</button></form>`
    : '';
  return {
    title: 'Your account',
    body: markup`<h1>Your account</h1><p>Signed in as <b>${input.email}</b>. <a href="${AUTH_BASE}/preferences">Preferences</a></p>
${invitation}
<h2>Delete your account</h2>
<p>This is immediate and permanent; there is no undo. You are signed out everywhere, your tokens stop working,
and your sessions, push subscriptions, connections and email history are deleted. If you are your organisation's
only member, its apps go offline at once and their data, files and Functions are deleted too; apps of an
organisation with other members stay, and you leave it. A confirmation email goes to your address.</p>
${error}${form}`.toString(),
  };
}

/** The page after a deletion was asked for. */
export function deletedPage(wholeOrganisation: boolean): HtmlPage {
  return {
    title: 'Account deleted',
    body: `<h1 id="deleted">Your account is being deleted</h1><p>You are signed out everywhere.${
      wholeOrganisation ? ' Your apps are offline and their data is being deleted.' : ''
    } A confirmation email is on its way to your old address.</p>`,
  };
}

/** The page after the person joined the organisation. */
export function joinedPage(): HtmlPage {
  return {
    title: 'Joined',
    body: `<h1 id="joined">You joined the organisation</h1><p>Its apps that are open to the organisation are open to you now. <a href="${ACCOUNT_PAGE}">Your account</a></p>`,
  };
}
