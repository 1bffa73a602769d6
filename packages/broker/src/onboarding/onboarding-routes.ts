import { PlatformError } from '@platform/errors';
import type { Context, Hono } from 'hono';
import type { AuthService } from '../auth/auth-service.ts';
import { formPage, staleFormPage } from '../auth/form-pages.ts';
import { signInPath } from '../auth/forms.ts';
import { messagePage } from '../auth/pages.ts';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { onboardingApiPath } from '../http/paths.ts';
import { readForm, seeOther } from '../pages/forms.ts';
import { pageResponse } from '../pages/page-shell.ts';
import type { Onboarding } from './onboarding.ts';
import {
  companyPage,
  launchPage,
  ONBOARDING_CONFIRM,
  onboardingPage,
  onboardingReviewPage,
} from './onboarding-pages.ts';
import type { OnboardingLinkProblem, OnboardingRequest } from './onboarding-requests.ts';

const linkProblems: Record<OnboardingLinkProblem, { status: number; title: string; text: string }> =
  {
    unknown: {
      status: 404,
      title: 'This link is not valid',
      text: 'Ask your coding agent to start again.',
    },
    used: {
      status: 410,
      title: 'This link was already used',
      text: 'It works once. Sign in to see your project.',
    },
    expired: {
      status: 410,
      title: 'This link has expired',
      text: 'It was valid for 24 hours. Ask your coding agent to start again.',
    },
  };

/**
 * Onboarding (spec 5.2) on the sign-in `auth` (the project app's under `platform dev`, the
 * central sign-in under `platform serve`): the owner API the `start_onboarding` tool sends
 * (`POST {onboardingApiPath}` `{ email }`, `POST …/:requestId` `{ claimSecret }`), admitted by
 * `admit` where no control-plane admission ran before (the dev token's does on an app), the
 * email link's review page and explicit confirmation (the preview-bound cookie of
 * `{auth_url}/confirm`), the owner launch page with its status, and company setup.
 */
export function mountOnboardingRoutes(
  app: Hono<BrokerEnv>,
  auth: AuthService,
  onboarding: Onboarding,
  admit: (c: Context<BrokerEnv>) => Promise<void> = async () => undefined,
): void {
  const body = async (c: Context<BrokerEnv>) =>
    ((await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json })) ?? {}) as Record<
      string,
      unknown
    >;
  app.post(onboardingApiPath, async (c) => {
    await admit(c);
    const started = await onboarding.start(c.req.param('appId'), (await body(c)).email, c.req.raw);
    return c.json(started, 201, { 'cache-control': 'no-store' });
  });
  app.post(`${onboardingApiPath}/:requestId`, async (c) => {
    await admit(c);
    const answer = await onboarding.finish(
      c.req.param('appId'),
      c.req.param('requestId') ?? '',
      (await body(c)).claimSecret,
    );
    return c.json(answer, 200, { 'cache-control': 'no-store' });
  });

  // A GET renders the review page and its cookie only: prefetchers approve nothing.
  app.get(ONBOARDING_CONFIRM, async (c) => {
    const token = c.req.query('token') ?? '';
    const request = await onboarding.requests.byLink(token);
    if (typeof request === 'string') return linkProblem(request);
    const { preview, setCookie } = auth.previewConfirmation(token, c.req.raw);
    return pageResponse(onboardingReviewPage({ request, token, preview }), {
      setCookies: [setCookie],
    });
  });
  app.post(ONBOARDING_CONFIRM, async (c) => {
    const form = await readForm(c);
    const token = form.token ?? '';
    if (!auth.checkConfirmation(c.req.raw, token, form.preview ?? '')) {
      return pageResponse(
        messagePage(
          'Open the link again to confirm',
          'Confirmation needs the page the email link opens, in the same browser. Open the link from the email again and press the button.',
        ),
        { status: 403 },
      );
    }
    const request = await onboarding.useLink(token);
    if (typeof request === 'string') return linkProblem(request);
    const cookies = await auth.confirmInThisBrowser(request.accountId, c.req.raw);
    return seeOther(onboardingPage(request.id), cookies);
  });

  app.get(`${onboardingPage(':id')}`, (c) =>
    personOnly(auth, onboarding, c, async (request) => pageResponse(launchPage({ request }))),
  );
  app.get(`${onboardingPage(':id')}/status`, (c) =>
    personOnly(auth, onboarding, c, async (request) => {
      // Only a finished request opens, and only once its project is there to open.
      const projectUrl =
        request.state === 'finished'
          ? await onboarding.project.openAt(request, c.req.raw)
          : undefined;
      return c.json(
        {
          state: request.state,
          companySetUp: request.companySetUp,
          ...(projectUrl === undefined ? {} : { projectUrl }),
        },
        200,
        { 'cache-control': 'no-store' },
      );
    }),
  );
  app.get(`${onboardingPage(':id')}/company`, (c) =>
    personOnly(auth, onboarding, c, async (request) => {
      const existing = await onboarding.company();
      const done = request.companySetUp;
      return formPage(auth, c.req.raw, (csrf) => companyPage({ request, csrf, existing, done }));
    }),
  );
  app.post(`${onboardingPage(':id')}/company`, (c) =>
    personOnly(auth, onboarding, c, async (request) => {
      const form = await readForm(c);
      if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
      const existing = await onboarding.company();
      try {
        await onboarding.setUpCompany(request, form.name);
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        const page = (csrf: string) =>
          companyPage({ request, csrf, existing, error: error.message });
        return formPage(auth, c.req.raw, page, { status: error.status });
      }
      return formPage(auth, c.req.raw, (csrf) =>
        companyPage({ request, csrf, existing, done: true }),
      );
    }),
  );
}

// The launch, status and company pages are the person's own: their session, else sign-in.
async function personOnly(
  auth: AuthService,
  onboarding: Onboarding,
  c: Context<BrokerEnv>,
  page: (request: OnboardingRequest) => Promise<Response>,
): Promise<Response> {
  const request = await onboarding.requests.find(c.req.param('id') ?? '');
  const identity = await auth.cookie(c.req.raw);
  if (identity === undefined && c.req.method === 'GET' && request !== undefined) {
    return c.redirect(signInPath(c.req.path), 302);
  }
  if (request === undefined || identity?.account.id !== request.accountId) {
    return pageResponse(
      messagePage('No such project request', 'Sign in as the person the project is for.'),
      { status: 404 },
    );
  }
  return page(request);
}

function linkProblem(problem: OnboardingLinkProblem): Response {
  const { status, title, text } = linkProblems[problem];
  return pageResponse(messagePage(title, text), { status });
}
