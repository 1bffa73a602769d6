import { limits } from '@platform/schema';
import { browserRoutes } from '@platform/schema/routes';
import type { Context, Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { AUTH_BASE } from '../http/paths.ts';
import { inMinutes } from '../kernel/clock.ts';
import { parseEmail } from '../kernel/email.ts';
import { readForm, seeOther } from '../pages/forms.ts';
import { pageResponse } from '../pages/page-shell.ts';
import type { AuthService } from './auth-service.ts';
import { claimRoute } from './claim-route.ts';
import type { LinkProblem } from './email-links.ts';
import { formPage, staleFormPage } from './form-pages.ts';
import { safeReturnTo, signInPath } from './forms.ts';
import {
  approvedPage,
  checkEmailPage,
  confirmEmailPage,
  linkProblemPage,
  messagePage,
  reviewPage,
  signInPage,
  verificationPage,
} from './pages.ts';

/**
 * The email-link flow (spec 5.1.2) under `{auth_url}` = `/_platform/auth`: the sign-in page,
 * the link request (outbox + terminal, claim cookie), the review page a GET renders, the
 * explicit confirmation POST, the requesting window's claim, and the verification resend.
 */
export function mountEmailLinkRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  app.get(browserRoutes.signIn.path, (c) => signIn(auth, c));
  app.post(`${AUTH_BASE}/email-link`, (c) => requestLink(auth, c));
  // A GET only renders the review page (and its confirmation cookie): prefetchers approve nothing.
  app.get(`${AUTH_BASE}/confirm`, (c) => confirmPage(auth, c));
  app.post(`${AUTH_BASE}/confirm`, (c) => confirm(auth, c));
  app.post(`${AUTH_BASE}/claim`, (c) => claimRoute(auth, c));
  app.post(`${AUTH_BASE}/resend-verification`, (c) => resendVerification(auth, c));
}

function signIn(auth: AuthService, c: Context<BrokerEnv>): Response {
  const returnTo = safeReturnTo(c.req.query('returnTo'), c.req.raw);
  return formPage(auth, c.req.raw, (csrf) => signInPage({ app: auth.displayName, csrf, returnTo }));
}

async function requestLink(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const form = await readForm(c);
  if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
  const returnTo = safeReturnTo(form.returnTo, c.req.raw);
  const email = parseEmail(form.email);
  if (email === undefined) {
    const error = 'Enter an email address.';
    const page = (csrf: string) =>
      signInPage({ app: auth.displayName, csrf, returnTo, email: form.email, error });
    return formPage(auth, c.req.raw, page, { status: 400 });
  }
  // The same page whether a link was sent or not, so the form does not reveal which addresses
  // have accounts.
  const claim = await auth.requestSignInLink(email, returnTo, c.req.raw);
  return pageResponse(checkEmailPage({ email, returnTo }), { setCookies: claim ? [claim] : [] });
}

async function confirmPage(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const token = c.req.query('token') ?? '';
  const found = await auth.previewLink(token, c.req.raw);
  if (!found.ok) return linkProblem(found.problem);
  const { link, preview, setCookie } = found;
  const page = reviewPage({
    app: auth.displayName,
    email: link.email,
    token,
    preview,
    purpose: link.purpose,
  });
  return pageResponse(page, { setCookies: [setCookie] });
}

async function confirm(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const form = await readForm(c);
  const confirmed = await auth.confirmLink(c.req.raw, form.token ?? '', form.preview ?? '');
  if (confirmed.ok) {
    return pageResponse(approvedPage(confirmed.link.purpose), {
      setCookies: [confirmed.setCookie],
    });
  }
  if (confirmed.problem !== 'not-previewed') return linkProblem(confirmed.problem);
  const within = inMinutes(limits.confirmationCookieSeconds);
  return pageResponse(
    messagePage(
      'Open the link again to confirm',
      `Confirmation needs the page the email link opens, in the same browser, within ${within}. Open the link from the email again and press Confirm.`,
    ),
    { status: 403 },
  );
}

async function resendVerification(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const form = await readForm(c);
  if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
  if (await auth.resendVerification(c.req.raw)) {
    const page = (csrf: string) => verificationPage({ app: auth.displayName, csrf, sent: true });
    return formPage(auth, c.req.raw, page, { status: 503 });
  }
  // Not the paused owner: the signed-in account itself, told to confirm before it may open a
  // private app it was granted.
  const identity = await auth.cookie(c.req.raw);
  if (identity === undefined || !(await auth.resendOwnConfirmation(c.req.raw))) {
    return seeOther('/');
  }
  const { email } = identity.account;
  const page = (csrf: string) =>
    confirmEmailPage({ app: auth.displayName, email, csrf, sent: true });
  return formPage(auth, c.req.raw, page, { status: 403 });
}

function linkProblem(problem: LinkProblem): Response {
  return pageResponse(linkProblemPage(problem, signInPath('/')), {
    status: problem === 'unknown' ? 404 : 410,
  });
}
