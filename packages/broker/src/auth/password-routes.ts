import type { Context, Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { AUTH_BASE } from '../http/paths.ts';
import { parseEmail } from '../kernel/email.ts';
import { readForm, seeOther } from '../pages/forms.ts';
import { pageResponse } from '../pages/page-shell.ts';
import type { AuthService } from './auth-service.ts';
import { attemptClient } from './client-key.ts';
import { formPage, staleFormPage } from './form-pages.ts';
import { safeReturnTo, signInPath } from './forms.ts';
import { confirmationHours, messagePage, preferencesPage, signInPage } from './pages.ts';
import { passwordProblem } from './passwords.ts';

const PREFERENCES = `${AUTH_BASE}/preferences`;
const WRONG_PASSWORD =
  'Wrong email or password. Accounts without a password sign in with an email link.';
const PAST_DEADLINE = `The ${confirmationHours}-hour confirmation deadline has passed. We sent a new confirmation link; confirm it, then sign in.`;

/**
 * Passwords (spec 5.1.3-4): sign-in with a configured password, registration of an unknown
 * address (unconfirmed account, confirmation email, provisional session until the 24-hour
 * deadline), and setting a password in Preferences. Failed attempts are limited per address
 * and per client, registrations per client (`RATE_LIMITED`, 429, with `Retry-After`).
 */
export function mountPasswordRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  app.post(`${AUTH_BASE}/password`, (c) => passwordSignIn(auth, c));
  app.get(PREFERENCES, (c) => preferences(auth, c));
  app.post(`${PREFERENCES}/password`, (c) => setPassword(auth, c));
}

async function passwordSignIn(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const form = await readForm(c);
  if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
  const returnTo = safeReturnTo(form.returnTo, c.req.raw);
  const again = (error: string, status: number) => {
    const page = { app: auth.displayName, returnTo, email: form.email, error, showPassword: true };
    return formPage(auth, c.req.raw, (csrf) => signInPage({ ...page, csrf }), { status });
  };
  const email = parseEmail(form.email);
  if (email === undefined) return again('Enter an email address.', 400);
  const attempt = { email, password: form.password ?? '', returnTo, client: attemptClient(c) };
  const result = await auth.signInWithPassword(attempt, c.req.raw);
  switch (result.outcome) {
    case 'signed-in':
      return seeOther(returnTo, [result.setCookie]);
    case 'invalid':
      return again(result.message, 400);
    case 'wrong':
      return again(WRONG_PASSWORD, 401);
    case 'rate-limited':
      return tooManyAttempts(result.retryAfterSeconds, result.limit, returnTo);
    case 'paused':
      return pageResponse(messagePage('Confirm your email first', PAST_DEADLINE), { status: 403 });
  }
}

function tooManyAttempts(
  wait: number,
  limit: 'failures' | 'registrations',
  returnTo: string,
): Response {
  const minutes = Math.ceil(wait / 60);
  return pageResponse(
    messagePage(
      limit === 'registrations' ? 'Too many new accounts' : 'Too many attempts',
      limit === 'registrations'
        ? `Too many new accounts were registered from this browser. Wait ${minutes} minute(s), or sign in to an account you have.`
        : `Too many wrong passwords. Wait ${minutes} minute(s), or use an email link.`,
      { href: signInPath(returnTo), label: 'Sign in with an email link' },
    ),
    { status: 429, headers: { 'retry-after': String(wait), 'x-platform-error': 'RATE_LIMITED' } },
  );
}

async function preferences(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const identity = await auth.cookie(c.req.raw);
  if (identity === undefined) return c.redirect(signInPath(PREFERENCES), 302);
  const { email } = identity.account;
  return formPage(auth, c.req.raw, (csrf) => preferencesPage({ email, csrf }));
}

async function setPassword(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const form = await readForm(c);
  if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
  const identity = await auth.cookie(c.req.raw);
  if (identity === undefined) return seeOther(signInPath(PREFERENCES));
  const { id, email } = identity.account;
  const page = (note: { message?: string; error?: string }, status = 200) =>
    formPage(auth, c.req.raw, (csrf) => preferencesPage({ email, csrf, ...note }), { status });
  const password = form.password ?? '';
  const problem = passwordProblem(password);
  if (problem !== undefined) return page({ error: problem }, 400);
  if (password !== form.confirmPassword) return page({ error: 'The two passwords differ.' }, 400);
  await auth.setPassword(id, password, identity.sessionId);
  return page({
    message: 'Password set. Your other sessions were signed out. Email-link sign-in keeps working.',
  });
}
