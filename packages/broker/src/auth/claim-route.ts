import type { Context } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { seeOther } from '../pages/forms.ts';
import { pageResponse } from '../pages/page-shell.ts';
import type { AuthService } from './auth-service.ts';
import type { LinkClaim } from './email-link-sign-in.ts';
import { staleFormPage } from './form-pages.ts';
import { signInPath } from './forms.ts';
import { checkEmailPage, linkLifetime, messagePage } from './pages.ts';

const noStore = { 'cache-control': 'no-store' };

type ClaimProblem = Extract<LinkClaim, { state: 'invalid' | 'expired' | 'claimed' }>['state'];

const claimProblems: Record<
  ClaimProblem,
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

/**
 * `POST {auth_url}/claim`: the window that asked for an email link turns its approval into its
 * own session. It answers JSON while the window polls (`Accept: application/json`), or pages
 * and a 303 to `returnTo` for the form post of a window without script.
 */
export async function claimRoute(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const json = (c.req.header('accept') ?? '').includes('application/json');
  const claim = await auth.claimLink(c.req.raw);
  switch (claim.state) {
    case 'pending': {
      const { email, returnTo } = claim.link;
      return json
        ? c.json({ state: 'pending' }, 200, noStore)
        : pageResponse(checkEmailPage({ email, returnTo }));
    }
    case 'refused':
      return staleFormPage();
    case 'approved': {
      const { returnTo } = claim.link;
      if (!json) return seeOther(returnTo, claim.setCookies);
      const response = c.json({ state: 'approved', returnTo }, 200, noStore);
      for (const cookie of claim.setCookies) response.headers.append('set-cookie', cookie);
      return response;
    }
    default: {
      const { status, title, text } = claimProblems[claim.state];
      if (json) return c.json({ state: claim.state, message: `${title}. ${text}` }, status);
      const page = messagePage(title, text, { href: signInPath('/'), label: 'Sign in' });
      return pageResponse(page, { status });
    }
  }
}
