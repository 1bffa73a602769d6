import { limits } from '@platform/schema';
import { browserRoutes } from '@platform/schema/routes';
import type { Context, Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { AUTH_BASE } from '../http/paths.ts';
import { parseEmail } from './auth-options.ts';
import type { AuthService } from './auth-service.ts';
import { CONFIRMATION_COOKIE_SECONDS } from './confirmation-cookie.ts';
import { authCookies, clearCookie, readCookie, setCookie } from './cookies.ts';
import { isSameOrigin } from './csrf.ts';
import type { ClaimState } from './email-links.ts';
import { readForm, safeReturnTo, seeOther, signInPath } from './forms.ts';
import { pageResponse } from './page-layout.ts';
import {
  approvedPage,
  checkEmailPage,
  inMinutes,
  linkLifetime,
  linkProblemPage,
  messagePage,
  reviewPage,
  signInPage,
  verificationPage,
} from './pages.ts';

const claimProblems: Record<
  Exclude<ClaimState['state'], 'approved' | 'pending'>,
  { status: 403 | 409 | 410; title: string; text: string }
> = {
  invalid: {
    status: 403,
    title: 'This sign-in belongs to another browser',
    text: 'Only the browser window that asked for the email link can continue. Ask for a new link in this browser.',
  },
  expired: {
    status: 410,
    title: 'This sign-in request has expired',
    text: `Links are valid for ${linkLifetime}. Ask for a new one.`,
  },
  claimed: {
    status: 409,
    title: 'This sign-in is already complete',
    text: 'Each email link signs in one browser once.',
  },
};

/** A 403 page for a form that fails the Origin or CSRF-token check. */
export const staleFormPage = (): Response =>
  pageResponse(
    messagePage('This form has expired', 'Reload the page and submit it again.', {
      href: browserRoutes.signIn.path,
      label: 'Sign in',
    }),
    { status: 403 },
  );

/**
 * The email-link flow (spec 5.1.2) under `{auth_url}` = `/_platform/auth`: the sign-in page,
 * the link request (outbox + terminal, claim cookie), the review page a GET renders, the
 * explicit confirmation POST, the requesting window's claim, and the verification resend.
 */
export function mountEmailLinkRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  const appName = auth.options.appId;

  app.get(browserRoutes.signIn.path, (c) => {
    const returnTo = safeReturnTo(c.req.query('returnTo'), c.req.raw);
    const csrf = auth.formToken(c.req.raw);
    return pageResponse(signInPage({ app: appName, csrf: csrf.token, returnTo }), {
      setCookies: csrf.setCookie ? [csrf.setCookie] : [],
    });
  });

  app.post(`${AUTH_BASE}/email-link`, async (c) => {
    const form = await readForm(c);
    if (!checkForm(auth, c, form)) return staleFormPage();
    const returnTo = safeReturnTo(form.returnTo, c.req.raw);
    const email = parseEmail(form.email);
    const csrf = auth.formToken(c.req.raw).token;
    if (email === undefined) {
      return pageResponse(
        signInPage({
          app: appName,
          csrf,
          returnTo,
          email: form.email,
          error: 'Enter an email address.',
        }),
        { status: 400 },
      );
    }
    if (!auth.options.registration && (await auth.accounts.byEmail(email)) === undefined) {
      // Same page either way, so the form does not reveal which addresses have accounts.
      auth.options.print(`[auth] No account for ${email} and registration is off; no link sent.`);
      return pageResponse(checkEmailPage({ email, returnTo }));
    }
    const claim = await auth.sendLink(email, 'sign-in', returnTo, new URL(c.req.url).origin);
    const cookie = setCookie(authCookies.claim, claim, {
      secure: auth.secure(c.req.raw),
      maxAgeSeconds: limits.emailLinkSeconds + 120,
    });
    return pageResponse(checkEmailPage({ email, returnTo }), { setCookies: [cookie] });
  });

  // A GET only renders the review page (and its confirmation cookie): prefetchers approve nothing.
  app.get(`${AUTH_BASE}/confirm`, async (c) => {
    const token = c.req.query('token') ?? '';
    const found = await auth.links.preview(token);
    if (!found.ok) {
      return pageResponse(linkProblemPage(found.problem, signInPath('/')), {
        status: found.problem === 'unknown' ? 404 : 410,
      });
    }
    const { preview, setCookie: cookie } = auth.confirmations.issue(token, auth.secure(c.req.raw));
    return pageResponse(
      reviewPage({
        app: appName,
        email: found.link.email,
        token,
        preview,
        purpose: found.link.purpose,
      }),
      { setCookies: [cookie] },
    );
  });

  app.post(`${AUTH_BASE}/confirm`, async (c) => {
    const form = await readForm(c);
    const token = form.token ?? '';
    const cookie = readCookie(c.req.raw, authCookies.confirm);
    if (!isSameOrigin(c.req.raw) || !auth.confirmations.verify(cookie, token, form.preview ?? '')) {
      return pageResponse(
        messagePage(
          'Open the link again to confirm',
          `Confirmation needs the page the email link opens, in the same browser, within ${inMinutes(CONFIRMATION_COOKIE_SECONDS)}. Open the link from the email again and press Confirm.`,
        ),
        { status: 403 },
      );
    }
    const approved = await auth.links.approve(token, async (link) => {
      const account =
        (await auth.accounts.byEmail(link.email)) ??
        (await auth.accounts.create(link.email, 'confirmed'));
      // The explicit confirmation proves the address: an unconfirmed or paused account is confirmed (spec 3.3).
      if (account.state !== 'confirmed') await auth.accounts.confirm(account.id);
      return account.id;
    });
    if (!approved.ok) {
      return pageResponse(linkProblemPage(approved.problem, signInPath('/')), {
        status: approved.problem === 'unknown' ? 404 : 410,
      });
    }
    return pageResponse(approvedPage(approved.link.purpose), {
      setCookies: [clearCookie(authCookies.confirm, auth.secure(c.req.raw))],
    });
  });

  // The requesting window: JSON while it polls, or a form post without script.
  app.post(`${AUTH_BASE}/claim`, async (c) => {
    const json = (c.req.header('accept') ?? '').includes('application/json');
    const secure = auth.secure(c.req.raw);
    const value = readCookie(c.req.raw, authCookies.claim);
    const claim: ClaimState =
      !isSameOrigin(c.req.raw) || value === undefined
        ? { state: 'invalid' }
        : await auth.links.claim(value, true);
    if (claim.state === 'pending') {
      return json
        ? c.json({ state: 'pending' }, 200, { 'cache-control': 'no-store' })
        : pageResponse(checkEmailPage({ email: claim.link.email, returnTo: claim.link.returnTo }));
    }
    if (claim.state !== 'approved') {
      const problem = claimProblems[claim.state];
      return json
        ? c.json(
            { state: claim.state, message: `${problem.title}. ${problem.text}` },
            problem.status,
          )
        : pageResponse(
            messagePage(problem.title, problem.text, { href: signInPath('/'), label: 'Sign in' }),
            { status: problem.status },
          );
    }
    const account = await auth.accounts.byId(claim.accountId);
    if (account === undefined || account.state === 'paused') return staleFormPage();
    const session = await auth.startSession(account, c.req.raw);
    const cookies = [session, clearCookie(authCookies.claim, secure)];
    if (!json) return seeOther(claim.link.returnTo, cookies);
    const response = c.json({ state: 'approved', returnTo: claim.link.returnTo }, 200, {
      'cache-control': 'no-store',
    });
    for (const cookie of cookies) response.headers.append('set-cookie', cookie);
    return response;
  });

  app.post(`${AUTH_BASE}/resend-verification`, async (c) => {
    const form = await readForm(c);
    if (!checkForm(auth, c, form)) return staleFormPage();
    const owner = await auth.owner();
    if (owner.state === 'confirmed') return seeOther('/');
    await auth.sendLink(owner.email, 'confirm', '/', new URL(c.req.url).origin);
    return pageResponse(
      verificationPage({ app: appName, csrf: auth.formToken(c.req.raw).token, sent: true }),
      { status: 503 },
    );
  });
}

/** Same origin and a matching form token. */
export function checkForm(
  auth: AuthService,
  c: Context<BrokerEnv>,
  form: Record<string, string>,
): boolean {
  try {
    auth.csrf.verify(c.req.raw, form.csrf);
    return true;
  } catch {
    return false;
  }
}
