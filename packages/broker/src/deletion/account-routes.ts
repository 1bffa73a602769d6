import { PlatformError } from '@platform/errors';
import type { Context, Hono } from 'hono';
import type { AuthService } from '../auth/auth-service.ts';
import { authCookies, clearCookie } from '../auth/cookies.ts';
import { formPage, staleFormPage } from '../auth/form-pages.ts';
import { signInPath } from '../auth/forms.ts';
import type { Identity } from '../auth/identity.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ACCOUNT_PAGE } from '../http/paths.ts';
import type { Organisation } from '../org/org-feature.ts';
import { readForm } from '../pages/forms.ts';
import { pageResponse } from '../pages/page-shell.ts';
import type { AccountDeletions } from './account-deletions.ts';
import { accountPage, deletedPage, joinedPage } from './account-page.ts';

/**
 * The account page of the signed-in person (`GET {auth_url}/account`), joining the organisation
 * by accepting an administrator's invitation (`POST {auth_url}/account/join`, with the CSRF
 * token) and account deletion (`POST {auth_url}/account/delete`, its form: the typed address
 * and the CSRF token). A browser without a session is sent to sign in and back.
 */
export function mountAccountRoutes(
  app: Hono<BrokerEnv>,
  auth: AuthService,
  deletions: AccountDeletions,
  org: Organisation | undefined,
): void {
  const invited = async (identity: Identity) =>
    (await org?.members.invited(identity.account.id)) ?? false;
  app.get(ACCOUNT_PAGE, async (c) => {
    const identity = await auth.cookie(c.req.raw);
    if (identity === undefined) return c.redirect(signInPath(ACCOUNT_PAGE), 302);
    const at = await signedInAt(auth, identity);
    const recentSignIn = at !== undefined && deletions.isRecent(at);
    const isInvited = await invited(identity);
    return formPage(auth, c.req.raw, (csrf) =>
      accountPage({ email: identity.account.email, csrf, recentSignIn, invited: isInvited }),
    );
  });
  app.post(`${ACCOUNT_PAGE}/join`, async (c) => {
    const form = await readForm(c);
    if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
    const identity = await auth.cookie(c.req.raw);
    if (identity === undefined) return c.redirect(signInPath(ACCOUNT_PAGE), 303);
    try {
      if (!org) {
        throw new PlatformError({
          code: 'INVITATION_NOT_FOUND',
          message: 'This app runs alone, without an organisation to join.',
        });
      }
      await org.members.accept(identity.account.id);
      return pageResponse(joinedPage());
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      const { code, message, status } = error;
      return formPage(
        auth,
        c.req.raw,
        (csrf) =>
          accountPage({
            email: identity.account.email,
            csrf,
            recentSignIn: false,
            error: { code, message },
          }),
        { status },
      );
    }
  });
  app.post(`${ACCOUNT_PAGE}/delete`, (c) => deleteAccount(auth, deletions, c));
}

// When this browser's person signed in: its session's creation, or for a session handed over
// from another app, the sign-in it was handed from (a handover proves nothing new).
async function signedInAt(auth: AuthService, identity: Identity): Promise<Date | undefined> {
  const session =
    identity.sessionId === undefined ? undefined : await auth.activeSession(identity.sessionId);
  return session?.signedInAt;
}

async function deleteAccount(
  auth: AuthService,
  deletions: AccountDeletions,
  c: Context<BrokerEnv>,
): Promise<Response> {
  const form = await readForm(c);
  if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
  const identity = await auth.cookie(c.req.raw);
  if (identity === undefined) return c.redirect(signInPath(ACCOUNT_PAGE), 303);
  try {
    const owner = await auth.owner().catch(() => undefined);
    const done = await deletions.request({
      account: identity.account,
      signedInAt: (await signedInAt(auth, identity)) ?? new Date(0),
      typedEmail: form.email ?? '',
      ownsThisApp: owner?.id === identity.account.id,
    });
    const cleared = clearCookie(authCookies.session, auth.secure(c.req.raw));
    return pageResponse(deletedPage(done.wholeOrganisation), { setCookies: [cleared] });
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    const { code, message, status } = error;
    const recentSignIn = code !== 'RECENT_SIGN_IN_REQUIRED';
    return formPage(
      auth,
      c.req.raw,
      (csrf) =>
        accountPage({
          email: identity.account.email,
          csrf,
          recentSignIn,
          error: { code, message },
        }),
      { status },
    );
  }
}
