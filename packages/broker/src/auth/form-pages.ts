import { browserRoutes } from '@platform/schema/routes';
import { type HtmlPage, pageResponse } from '../pages/page-shell.ts';
import type { AuthService } from './auth-service.ts';
import { messagePage } from './pages.ts';

/**
 * A page with a form on it: rendered with this browser's form token, and setting the CSRF
 * cookie when the browser has none yet.
 *
 * @example
 * ```ts
 * return formPage(auth, c.req.raw, (csrf) => signOutPage({ csrf, returnTo }));
 * ```
 */
export function formPage(
  auth: AuthService,
  request: Request,
  render: (csrf: string) => HtmlPage,
  init: { status?: number } = {},
): Response {
  const csrf = auth.formToken(request);
  return pageResponse(render(csrf.token), {
    ...init,
    setCookies: csrf.setCookie ? [csrf.setCookie] : [],
  });
}

/** A 403 page for a form that fails the Origin or CSRF-token check. */
export const staleFormPage = (): Response =>
  pageResponse(
    messagePage('This form has expired', 'Reload the page and submit it again.', {
      href: browserRoutes.signIn.path,
      label: 'Sign in',
    }),
    { status: 403 },
  );
