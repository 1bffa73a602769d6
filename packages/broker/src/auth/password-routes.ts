import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { AUTH_BASE } from '../http/paths.ts';
import { parseEmail } from './auth-options.ts';
import type { AuthService } from './auth-service.ts';
import { checkForm, staleFormPage } from './email-link-routes.ts';
import { clientAddress, readForm, safeReturnTo, seeOther, signInPath } from './forms.ts';
import { pageResponse } from './page-layout.ts';
import { messagePage, preferencesPage, signInPage } from './pages.ts';
import {
  burnPasswordCheck,
  checkPasswordLength,
  hashPassword,
  verifyPassword,
} from './passwords.ts';

const lengthProblem = (password: string): string | undefined => {
  try {
    checkPasswordLength(password);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : 'A password has 8 to 72 characters.';
  }
};

/**
 * Passwords (spec 5.1.3-4): sign-in with a configured password, registration of an unknown
 * address (unconfirmed account, confirmation email, provisional session until the 24-hour
 * deadline), and setting a password in Preferences. Failed attempts are limited per address
 * and per client (`RATE_LIMITED`, 429, with `Retry-After`).
 */
export function mountPasswordRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  const appName = auth.options.appId;

  app.post(`${AUTH_BASE}/password`, async (c) => {
    const form = await readForm(c);
    if (!checkForm(auth, c, form)) return staleFormPage();
    const returnTo = safeReturnTo(form.returnTo, c.req.raw);
    const csrf = auth.formToken(c.req.raw).token;
    const email = parseEmail(form.email);
    const password = form.password ?? '';
    const again = (error: string, status: number) =>
      pageResponse(
        signInPage({ app: appName, csrf, returnTo, email: form.email, error, showPassword: true }),
        { status },
      );
    if (email === undefined) return again('Enter an email address.', 400);
    const emailKey = `email:${email}`;
    const clientKey = `client:${clientAddress(c)}`;
    const wait = Math.max(
      auth.emailFailures.blockedFor(emailKey),
      auth.clientFailures.blockedFor(clientKey),
    );
    if (wait > 0) {
      return pageResponse(
        messagePage(
          'Too many attempts',
          `Too many wrong passwords. Wait ${Math.ceil(wait / 60)} minute(s), or use an email link.`,
          { href: signInPath(returnTo), label: 'Sign in with an email link' },
        ),
        {
          status: 429,
          headers: { 'retry-after': String(wait), 'x-platform-error': 'RATE_LIMITED' },
        },
      );
    }
    const problem = lengthProblem(password);
    if (problem !== undefined) return again(problem, 400);
    const account = await auth.accounts.byEmail(email);
    if (account === undefined && auth.options.registration) {
      const verifier = await hashPassword(password, auth.options.passwordCost);
      const created = await auth.accounts.create(email, 'unconfirmed', verifier);
      await auth.sendLink(email, 'confirm', returnTo, new URL(c.req.url).origin);
      return seeOther(returnTo, [await auth.startSession(created, c.req.raw)]);
    }
    const verifier = account === undefined ? null : await auth.accounts.verifierOf(account.id);
    const ok =
      verifier === null
        ? await burnPasswordCheck(password, auth.options.passwordCost)
        : await verifyPassword(password, verifier);
    if (account === undefined || !ok) {
      auth.emailFailures.fail(emailKey);
      auth.clientFailures.fail(clientKey);
      return again(
        'Wrong email or password. Accounts without a password sign in with an email link.',
        401,
      );
    }
    auth.emailFailures.reset(emailKey);
    if (account.state === 'paused') {
      await auth.sendLink(email, 'confirm', returnTo, new URL(c.req.url).origin);
      return pageResponse(
        messagePage(
          'Confirm your email first',
          'The 24-hour confirmation deadline has passed. We sent a new confirmation link; confirm it, then sign in.',
        ),
        { status: 403 },
      );
    }
    return seeOther(returnTo, [await auth.startSession(account, c.req.raw)]);
  });

  app.get(`${AUTH_BASE}/preferences`, async (c) => {
    const identity = await auth.cookie(c.req.raw);
    if (identity === undefined) return c.redirect(signInPath(`${AUTH_BASE}/preferences`), 302);
    const csrf = auth.formToken(c.req.raw);
    return pageResponse(preferencesPage({ email: identity.account.email, csrf: csrf.token }), {
      setCookies: csrf.setCookie ? [csrf.setCookie] : [],
    });
  });

  app.post(`${AUTH_BASE}/preferences/password`, async (c) => {
    const form = await readForm(c);
    if (!checkForm(auth, c, form)) return staleFormPage();
    const identity = await auth.cookie(c.req.raw);
    if (identity === undefined) return seeOther(signInPath(`${AUTH_BASE}/preferences`));
    const csrf = auth.formToken(c.req.raw).token;
    const page = (init: { message?: string; error?: string }, status = 200) =>
      pageResponse(preferencesPage({ email: identity.account.email, csrf, ...init }), { status });
    const password = form.password ?? '';
    const problem = lengthProblem(password);
    if (problem !== undefined) return page({ error: problem }, 400);
    if (password !== form.confirmPassword) return page({ error: 'The two passwords differ.' }, 400);
    await auth.accounts.setVerifier(
      identity.account.id,
      await hashPassword(password, auth.options.passwordCost),
    );
    return page({ message: 'Password set. Email-link sign-in keeps working.' });
  });
}
