import { limits } from '@platform/schema';
import type { HtmlEscapedString } from 'hono/utils/html';
import { AUTH_BASE } from '../http/paths.ts';
import { inMinutes } from '../kernel/clock.ts';
import { type HtmlPage, hidden, markup } from '../pages/page-shell.ts';
import type { LinkProblem } from './email-links.ts';

/** How long an email link is valid, in words (`limits.emailLinkSeconds`). */
export const linkLifetime = inMinutes(limits.emailLinkSeconds);

/** How long a new address has to be confirmed, in hours (`limits.confirmationDeadlineSeconds`). */
export const confirmationHours = limits.confirmationDeadlineSeconds / 3600;

/** The sign-in page: email link by default, a password on request (spec 5.1.2-3). */
export function signInPage(input: {
  app: string;
  csrf: string;
  returnTo: string;
  email?: string | undefined;
  error?: string | undefined;
  showPassword?: boolean | undefined;
}): HtmlPage {
  const error =
    input.error === undefined ? '' : markup`<p class="error" role="alert">${input.error}</p>`;
  return {
    title: `Sign in to ${input.app}`,
    body: markup`<h1>Sign in to ${input.app}</h1>${error}
<form method="post" action="${AUTH_BASE}/email-link">${hidden('csrf', input.csrf)}${hidden('returnTo', input.returnTo)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required value="${input.email ?? ''}">
<details${input.showPassword ? ' open' : ''}><summary>Use a password</summary>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" minlength="8" maxlength="72">
<button id="password-sign-in" type="submit" formaction="${AUTH_BASE}/password">Sign in with password</button>
<p class="muted">A new address is registered; confirm it by email within ${confirmationHours} hours.</p></details>
<button id="email-link" type="submit">Email me a sign-in link</button></form>`.toString(),
  };
}

/** The requesting window while it waits: it polls its claim and continues on approval. */
export function checkEmailPage(input: { email: string; returnTo: string }): HtmlPage {
  return {
    title: 'Check your email',
    body: markup`<h1>Check your email</h1><p>We sent a sign-in link to <b>${input.email}</b>. Keep this window open,
open the link (valid ${linkLifetime}) and confirm. This window then continues by itself.</p>
<form method="post" action="${AUTH_BASE}/claim"><button id="continue" type="submit">I have confirmed, continue</button></form>
<p id="status" class="muted" role="status"></p>`.toString(),
    // Polls every 1.5 s; the claim cookie is path-scoped to the claim route and HttpOnly.
    script: `(function poll(){fetch(${JSON.stringify(`${AUTH_BASE}/claim`)},{method:'POST',headers:{accept:'application/json'}})
.then(function(r){return r.json()}).then(function(a){if(a.state==='approved'){location.replace(a.returnTo);return}
if(a.state==='pending'){setTimeout(poll,1500);return}document.getElementById('status').textContent=a.message})
.catch(function(){setTimeout(poll,3000)})})();`,
  };
}

/** The review page a GET of the email link renders: nothing is approved until the button. */
export function reviewPage(input: {
  app: string;
  email: string;
  token: string;
  preview: string;
  purpose: 'sign-in' | 'confirm';
}): HtmlPage {
  const what =
    input.purpose === 'sign-in'
      ? markup`Sign in to <b>${input.app}</b> as <b>${input.email}</b>?`
      : markup`Confirm the address <b>${input.email}</b>?`;
  return {
    title: input.purpose === 'sign-in' ? 'Confirm sign-in' : 'Confirm your email',
    body: markup`<h1>${input.purpose === 'sign-in' ? 'Confirm sign-in' : 'Confirm your email'}</h1><p>${what}</p>
<form method="post" action="${AUTH_BASE}/confirm">${hidden('token', input.token)}${hidden('preview', input.preview)}
<button id="confirm" type="submit">Confirm</button></form>
<p class="muted">If you did not ask for this, close this page.</p>`.toString(),
  };
}

/** After approval, in the window that opened the message. */
export function approvedPage(purpose: 'sign-in' | 'confirm'): HtmlPage {
  return purpose === 'sign-in'
    ? {
        title: 'Sign-in approved',
        body: '<h1 id="done">Sign-in approved</h1><p>You can close this window. The window where you asked for the link continues signed in.</p>',
      }
    : {
        title: 'Email confirmed',
        body: '<h1 id="done">Email confirmed</h1><p>Your address is confirmed and your apps run normally. You can close this window.</p>',
      };
}

const linkProblems: Record<LinkProblem, { title: string; text: string }> = {
  unknown: {
    title: 'This link is not valid',
    text: 'Copy the whole link from the email, or ask for a new one.',
  },
  expired: {
    title: 'This link has expired',
    text: `Sign-in links are valid for ${linkLifetime}. Ask for a new one.`,
  },
  used: {
    title: 'This link was already used',
    text: 'Each link works once. Ask for a new one if you still need to sign in.',
  },
};

/** An email link that cannot be used (spec: expired, reused and unknown links fail clearly). */
export function linkProblemPage(problem: LinkProblem, signInUrl: string): HtmlPage {
  const { title, text } = linkProblems[problem];
  return {
    title,
    body: markup`<h1 id="problem" data-problem="${problem}">${title}</h1><p>${text}</p><p><a href="${signInUrl}">Sign in</a></p>`.toString(),
  };
}

/** A page with a heading, a sentence and an optional link. */
export function messagePage(
  title: string,
  text: string,
  link?: { href: string; label: string },
): HtmlPage {
  const a = link === undefined ? '' : markup`<p><a href="${link.href}">${link.label}</a></p>`;
  return { title, body: markup`<h1 id="message">${title}</h1><p>${text}</p>${a}`.toString() };
}

/** HTTP 403 for a signed-in account without a grant to a private app (spec 5.3). */
export function accessDeniedPage(input: { app: string; email: string; csrf: string }): HtmlPage {
  return {
    title: 'No access',
    body: markup`<h1 id="denied">No access to ${input.app}</h1><p><b>${input.email}</b> is signed in but has no access to this private app.
Ask its owner to run <code>platform access grant ${input.email}</code>.</p>${signOutForm(input.csrf, '/')}`.toString(),
  };
}

/**
 * HTTP 403 for a signed-in account that has access but has not confirmed its email address yet
 * (spec 3.3: an unconfirmed account cannot use private apps of another owner): the real reason,
 * and the button that sends a new confirmation link.
 */
export function confirmEmailPage(input: {
  app: string;
  email: string;
  csrf: string;
  sent?: boolean;
}): HtmlPage {
  const sent = input.sent
    ? markup`<p role="status">A new confirmation link was sent to ${input.email}.</p>`
    : '';
  return {
    title: 'Confirm your email address',
    body: markup`<h1 id="confirm-email">Confirm your email address</h1><p><b>${input.email}</b> may open ${input.app} once it confirms its email address: open the confirmation link sent to it.</p>${sent}
<form method="post" action="${AUTH_BASE}/resend-verification">${hidden('csrf', input.csrf)}
<button id="resend" type="submit">Send a new confirmation link</button></form>${signOutForm(input.csrf, '/')}`.toString(),
  };
}

/** The app address while its owner's account waits for confirmation (spec 3.3). */
export function verificationPage(input: { app: string; csrf: string; sent?: boolean }): HtmlPage {
  const sent = input.sent ? markup`<p role="status">A new confirmation link was sent.</p>` : '';
  return {
    title: 'Verification required',
    body: markup`<h1 id="verification">Verification required</h1><p>${input.app} is paused until its owner confirms their email address.
Data, files and settings are kept.</p>${sent}<form method="post" action="${AUTH_BASE}/resend-verification">${hidden('csrf', input.csrf)}
<button id="resend" type="submit">Send a new confirmation link</button></form>`.toString(),
  };
}

/** The sign-out confirmation (a GET never signs out). */
export function signOutPage(input: { csrf: string; returnTo: string }): HtmlPage {
  return {
    title: 'Sign out',
    body: markup`<h1>Sign out</h1><p>Sign out of this browser? Your other sessions stay signed in.</p>${signOutForm(input.csrf, input.returnTo)}`.toString(),
  };
}

/** Global preferences: set or change the password (spec 5.1.4). */
export function preferencesPage(input: {
  email: string;
  csrf: string;
  message?: string | undefined;
  error?: string | undefined;
}): HtmlPage {
  const note = input.error
    ? markup`<p class="error" role="alert">${input.error}</p>`
    : input.message
      ? markup`<p role="status">${input.message}</p>`
      : '';
  return {
    title: 'Preferences',
    body: markup`<h1>Preferences</h1><p>Signed in as <b>${input.email}</b>.</p>${note}
<form method="post" action="${AUTH_BASE}/preferences/password">${hidden('csrf', input.csrf)}
<label for="password">New password (8 to 72 characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="72" required>
<label for="confirmPassword">Repeat the new password</label><input id="confirmPassword" name="confirmPassword" type="password" autocomplete="new-password" required>
<button type="submit">Set password</button><p class="muted">Email-link sign-in keeps working.</p></form>`.toString(),
  };
}

function signOutForm(csrf: string, returnTo: string): HtmlEscapedString {
  return markup`<form method="post" action="${AUTH_BASE}/sign-out">${hidden('csrf', csrf)}${hidden('returnTo', returnTo)}<button id="sign-out" type="submit">Sign out</button></form>`;
}
