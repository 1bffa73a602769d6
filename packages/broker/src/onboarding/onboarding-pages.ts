import { AUTH_BASE } from '../http/paths.ts';
import { type HtmlPage, hidden, markup } from '../pages/page-shell.ts';
import type { OnboardingRequest } from './onboarding-requests.ts';

/** The onboarding email's link: its review page (GET) and explicit confirmation (POST). */
export const ONBOARDING_CONFIRM = `${AUTH_BASE}/confirm/onboarding`;

/** The owner launch page of a request, and its company setup and status. */
export const onboardingPage = (id: string): string => `${AUTH_BASE}/onboarding/${id}`;

/** The review page of an onboarding or approval link: nothing happens until Confirm. */
export function onboardingReviewPage(input: {
  readonly request: OnboardingRequest;
  readonly token: string;
  readonly preview: string;
}): HtmlPage {
  const { request } = input;
  const what =
    request.kind === 'new'
      ? markup`A coding agent started the project <b>${request.appId}</b> for <b>${request.email}</b>. Confirm this address to create your account and continue.`
      : markup`A coding agent asks to work on the project <b>${request.appId}</b> for your account <b>${request.email}</b>. Approve only if you asked it to.`;
  const action = request.kind === 'new' ? 'Confirm and continue' : 'Approve';
  return {
    title: 'Your new project',
    body: markup`<h1>Your new project</h1><p>${what}</p>
<form method="post" action="${ONBOARDING_CONFIRM}">${hidden('token', input.token)}${hidden('preview', input.preview)}
<button id="confirm" type="submit">${action}</button></form>
<p class="muted">If you did not ask for this, close this page: nothing happens.</p>`.toString(),
  };
}

/**
 * The owner launch page (non-secret): it waits for company setup (opened in a separate tab),
 * then for the agent to finish onboarding, then, where the project is still to be deployed, for
 * its first deployment, and opens the project once the status names its address. `#state`'s
 * `data-state` is the request's state, or `deploying` while a finished request waits for it.
 */
export function launchPage(input: { readonly request: OnboardingRequest }): HtmlPage {
  const { request } = input;
  return {
    title: `Launching ${request.appId}`,
    body: markup`<h1>Launching ${request.appId}</h1>
<p id="state" data-state="${request.state}"></p>
<p id="company"${request.companySetUp ? ' hidden' : ''}><a id="set-up-company" href="${onboardingPage(request.id)}/company" target="_blank" rel="noopener">Set up your company</a> (opens in a new tab), then come back here.</p>`.toString(),
    script: `
const messages = {
  organisation_setup_required: 'Set up your company to continue.',
  approval_required: 'Waiting for your approval.',
  ready: 'All set. Return to your coding agent and ask it to finish onboarding.',
  finished: 'Opening your project…',
  deploying: ${JSON.stringify(`Your coding agent finished onboarding. Waiting for the first deployment of ${request.appId}…`)},
  expired: 'This request expired. Ask your coding agent to start again.',
};
const state = document.getElementById('state');
const company = document.getElementById('company');
async function poll() {
  const answer = await fetch(${JSON.stringify(`${onboardingPage(request.id)}/status`)}, {
    headers: { accept: 'application/json' },
  });
  if (!answer.ok) return setTimeout(poll, 2000);
  const status = await answer.json();
  const shown = status.state === 'finished' && !status.projectUrl ? 'deploying' : status.state;
  state.dataset.state = shown;
  state.textContent = messages[shown] ?? shown;
  company.hidden = status.companySetUp;
  if (status.projectUrl) return location.assign(status.projectUrl);
  if (status.state !== 'expired') setTimeout(poll, 1000);
}
poll();`,
  };
}

/** Company setup: name the company, or join the one already set up (its invitation). */
export function companyPage(input: {
  readonly request: OnboardingRequest;
  readonly csrf: string;
  readonly existing: string | undefined;
  readonly done?: boolean;
  readonly error?: string;
}): HtmlPage {
  if (input.done) {
    return {
      title: 'Company set up',
      body: `<h1 id="company-done">You are set up</h1><p>Close this tab and return to the launch page.</p>`,
    };
  }
  const error = input.error ? markup`<p class="error" role="alert">${input.error}</p>` : '';
  const form =
    input.existing === undefined
      ? markup`<label for="name">Company name</label><input id="name" name="name" required maxlength="100">
<button id="create-company" type="submit">Set up the company</button>`
      : markup`<p>You are invited to <b>${input.existing}</b>.</p><button id="accept" type="submit">Accept the invitation</button>`;
  return {
    title: 'Set up your company',
    body: markup`<h1>Set up your company</h1>${error}
<form method="post">${hidden('csrf', input.csrf)}${form}</form>`.toString(),
  };
}
