// Every value a person, an app or a provider controls reaches the broker's pages escaped exactly
// once: never as markup, never escaped twice, and the pages' own markup never turned into text.
import type { IntegrationContract } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';
import {
  approveRequestPage,
  revealedPage,
  revealReviewPage,
} from '../../src/auth/app-token-pages.ts';
import { continuePage } from '../../src/auth/handoff-routes.ts';
import {
  accessDeniedPage,
  checkEmailPage,
  confirmEmailPage,
  linkProblemPage,
  messagePage,
  preferencesPage,
  reviewPage,
  signInPage,
  signOutPage,
  verificationPage,
} from '../../src/auth/pages.ts';
import { accountPage, deletedPage } from '../../src/deletion/account-page.ts';
import {
  connectedPage,
  connectPage,
  signInFailedPage,
  signInIncompletePage,
} from '../../src/integrations/connect-page.ts';
import {
  companyPage,
  launchPage,
  onboardingReviewPage,
} from '../../src/onboarding/onboarding-pages.ts';
import type { OnboardingRequest } from '../../src/onboarding/onboarding-requests.ts';
import { orgPage } from '../../src/org/org-page.ts';
import { dashboardPage } from '../../src/pages/dashboard/dashboard-page.ts';
import type { HtmlPage } from '../../src/pages/page-shell.ts';
import { setupForm } from '../../src/serve/first-administrator.ts';
import { notDeployedPage } from '../../src/serve/start-serve.ts';

/** A value that breaks out of element content and of either kind of quoted attribute. */
const planted = (what: string) => `<script>${what}</script>"'&`;
/** The same value escaped once. */
const once = (what: string) => `&lt;script&gt;${what}&lt;/script&gt;&quot;&#39;&amp;`;

// Entities the pages' templates write themselves (not produced by escaping).
const ownEntities = ['<code>Authorization: Bearer &lt;token&gt;</code>'];

/**
 * Checks `html` shows each of `shown` escaped exactly once, and that nothing else in it is an
 * entity: a value escaped twice leaves `&amp;lt;`, a piece of markup passed as a string leaves
 * `&lt;p`, and a value not escaped at all leaves `<script>`.
 */
function expectEscapedOnce(html: string, shown: readonly string[]): void {
  expect(html).not.toMatch(/<script>/);
  for (const what of shown) expect(html, what).toContain(once(what));
  let rest = html;
  for (const what of shown) rest = rest.replaceAll(once(what), '');
  for (const entity of ownEntities) rest = rest.replaceAll(entity, '');
  expect(rest).not.toMatch(/&(amp|lt|gt|quot|#39);/);
}

const body = (page: HtmlPage) => page.body;

const request = (kind: OnboardingRequest['kind']): OnboardingRequest => ({
  id: 'req_1',
  appId: planted('project'),
  email: planted('email'),
  accountId: 'acc_1',
  kind,
  state: 'organisation_setup_required',
  confirmed: false,
  companySetUp: false,
  expiresAt: '2026-01-01T00:00:00.000Z',
});

describe('values on the broker pages', () => {
  it('sign-in, review, link and message pages', () => {
    expectEscapedOnce(
      body(
        signInPage({
          app: planted('app'),
          csrf: planted('csrf'),
          returnTo: planted('returnTo'),
          email: planted('email'),
          error: planted('error'),
          showPassword: true,
        }),
      ),
      ['app', 'csrf', 'returnTo', 'email', 'error'],
    );
    expectEscapedOnce(
      body(checkEmailPage({ email: planted('email'), returnTo: planted('returnTo') })),
      ['email'],
    );
    for (const purpose of ['sign-in', 'confirm'] as const) {
      const shown = ['email', 'token', 'preview', ...(purpose === 'sign-in' ? ['app'] : [])];
      const page = reviewPage({
        app: planted('app'),
        email: planted('email'),
        token: planted('token'),
        preview: planted('preview'),
        purpose,
      });
      expectEscapedOnce(body(page), shown);
    }
    for (const problem of ['unknown', 'expired', 'used'] as const) {
      expectEscapedOnce(body(linkProblemPage(problem, planted('url'))), ['url']);
    }
    const message = messagePage(planted('title'), planted('text'), {
      href: planted('href'),
      label: planted('label'),
    });
    expectEscapedOnce(body(message), ['title', 'text', 'href', 'label']);
  });

  it('access, confirmation, verification, sign-out and preferences pages', () => {
    const who = { app: planted('app'), email: planted('email'), csrf: planted('csrf') };
    expectEscapedOnce(body(accessDeniedPage(who)), ['app', 'email', 'csrf']);
    expectEscapedOnce(body(confirmEmailPage({ ...who, sent: true })), ['app', 'email', 'csrf']);
    expectEscapedOnce(body(verificationPage({ ...who, sent: true })), ['app', 'csrf']);
    expectEscapedOnce(body(signOutPage({ csrf: planted('csrf'), returnTo: planted('returnTo') })), [
      'csrf',
      'returnTo',
    ]);
    expectEscapedOnce(
      body(
        preferencesPage({ email: planted('email'), csrf: planted('csrf'), error: planted('e') }),
      ),
      ['email', 'csrf', 'e'],
    );
    expectEscapedOnce(
      body(
        preferencesPage({ email: planted('email'), csrf: planted('csrf'), message: planted('m') }),
      ),
      ['email', 'csrf', 'm'],
    );
    const account = accountPage({
      email: planted('email'),
      csrf: planted('csrf'),
      recentSignIn: true,
      invited: true,
      error: { code: planted('code'), message: planted('message') },
    });
    expectEscapedOnce(body(account), ['email', 'csrf', 'code', 'message']);
    expectEscapedOnce(body(deletedPage(true)), []);
  });

  it('token request, reveal and revealed pages', () => {
    for (const kind of ['account', 'agent', 'app_token'] as const) {
      const page = approveRequestPage({
        app: planted('app'),
        request: {
          id: 'r1',
          kind,
          name: planted('name'),
          userCode: 'WXYZ-QRST',
          state: 'pending',
          expiresAt: '2026-01-01T00:00:00.000Z',
        },
        csrf: planted('csrf'),
        error: planted('error'),
      });
      expectEscapedOnce(body(page), [
        'name',
        'csrf',
        'error',
        ...(kind === 'account' ? [] : ['app']),
      ]);
      expect(page.body).not.toContain('WXYZ-QRST');
    }
    const decided = approveRequestPage({
      app: planted('app'),
      request: {
        id: 'r1',
        kind: 'app_token',
        name: planted('name'),
        userCode: 'BCDF-GHJK',
        state: 'denied',
        expiresAt: '2026-01-01T00:00:00.000Z',
      },
      csrf: planted('csrf'),
    });
    expectEscapedOnce(body(decided), ['name']);
    const reveal = revealReviewPage({
      app: planted('app'),
      token: {
        id: 't1',
        name: planted('name'),
        state: 'awaiting_reveal',
        hint: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        lastUsedAt: null,
        revealExpiresAt: null,
      },
      secret: planted('secret'),
      csrf: planted('csrf'),
    });
    expectEscapedOnce(body(reveal), ['app', 'name', 'secret', 'csrf']);
    expectEscapedOnce(body(revealedPage({ name: planted('name'), token: planted('token') })), [
      'name',
      'token',
    ]);
  });

  it('connect pages: integration titles, credential labels, slots, apps and provider answers', () => {
    const contract = {
      name: planted('integration'),
      title: planted('title'),
      credentials: [
        { name: planted('field'), label: planted('label'), secret: true, optional: false },
        { name: 'region', label: planted('region'), secret: false, optional: true },
      ],
      capabilities: [],
      operations: [],
    } as unknown as IntegrationContract;
    const link = {
      providerAppId: planted('provider'),
      integration: planted('integration'),
      kind: 'organisation' as const,
      accountId: 'acc_1',
      connectionId: 'conn_1',
      bind: { appId: planted('consumer'), slot: planted('slot') },
      expiresAt: '2026-01-01T00:00:00.000Z',
    };
    const page = connectPage(contract, link, planted('error'));
    expectEscapedOnce(body(page), [
      'integration',
      'title',
      'field',
      'label',
      'region',
      'provider',
      'consumer',
      'slot',
      'error',
    ]);
    expect(page.body).toContain('<span class="muted">(optional)</span>');
    expect(page.body).toContain('maxlength="4096" required>');
    expectEscapedOnce(body(connectPage({ ...contract, credentials: [] }, link)), [
      'integration',
      'title',
      'provider',
      'consumer',
      'slot',
    ]);
    expectEscapedOnce(body(connectedPage(contract, planted('slot'))), ['title', 'slot']);
    expectEscapedOnce(body(signInIncompletePage(planted('reason'))), ['reason']);
    expectEscapedOnce(body(signInFailedPage(planted('why'))), ['why']);
  });

  it('onboarding pages: project names, addresses, company names and errors', () => {
    for (const kind of ['new', 'existing'] as const) {
      const page = onboardingReviewPage({
        request: request(kind),
        token: planted('token'),
        preview: planted('preview'),
      });
      expectEscapedOnce(body(page), ['project', 'email', 'token', 'preview']);
    }
    expectEscapedOnce(body(launchPage({ request: request('new') })), ['project']);
    const company = companyPage({
      request: request('new'),
      csrf: planted('csrf'),
      existing: planted('company'),
      error: planted('error'),
    });
    expectEscapedOnce(body(company), ['csrf', 'company', 'error']);
  });

  it('organisation page and console: apps, members and sections', () => {
    const org = orgPage({
      organisation: planted('org'),
      apps: [{ appId: planted('app'), url: planted('url'), dashboard: planted('dashboard') }],
      members: [{ email: planted('email'), role: planted('role') }],
    });
    expectEscapedOnce(body(org), ['org', 'app', 'url', 'dashboard', 'email', 'role']);
    const console = dashboardPage({
      appId: planted('app'),
      script: '/_platform/dashboard/dashboard.js',
      sections: [
        {
          id: 'one',
          group: planted('group'),
          title: planted('section'),
          api: { list: '/v1/apps/:appId/things' },
          html: '<table id="things"></table>',
          script: 'x.ts',
        },
      ],
    });
    // The section's API paths go into a JSON attribute: its quotes are escaped once too.
    const api = JSON.stringify({ list: `/v1/apps/${encodeURIComponent(planted('app'))}/things` })
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&#39;');
    expect(console.body).toContain(`data-api="${api}"`);
    expectEscapedOnce(body(console).replace(api, ''), ['app', 'group', 'section']);
    expect(console.body).toContain('<table id="things"></table>');
  });

  it('pages answered whole: continue, setup form and no app here', async () => {
    const going = await continuePage(
      { appId: planted('app'), url: 'https://other.example' },
      planted('href'),
    ).text();
    expectEscapedOnce(going.slice(going.indexOf('<body')), ['app', 'href']);
    const setup = await setupForm(planted('key'), planted('problem'), planted('email')).text();
    expectEscapedOnce(setup.slice(setup.indexOf('<body')), ['key', 'problem', 'email']);
    const none = await notDeployedPage(planted('app'), planted('base')).text();
    expectEscapedOnce(none.slice(none.indexOf('<body')), ['app', 'base']);
  });
});
