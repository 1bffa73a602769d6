import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardPaths } from '../../src/http/paths.ts';
import { authBroker, DAY, FakeBrowser, field, HOUR, latestLinkToken } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const OWNER = 'onboarded@example.com';

beforeAll(async () => {
  // An owner created unconfirmed (agent onboarding): the 24-hour deadline runs from the start.
  env = await authBroker({
    auth: { ownerEmail: OWNER, ownerUnconfirmed: true, visibility: 'public' },
  });
  env.broker.app.get('/app', (c) => c.html('<h1>app page</h1>'));
});
afterAll(() => env?.cleanup());

describe('account confirmation (spec 3.3)', () => {
  let browser: FakeBrowser;

  it('lets an unconfirmed owner work on their app before the deadline', async () => {
    const owner = await env.broker.auth.owner();
    await env.broker.auth.setPassword(owner.id, 'correct horse 1');
    browser = new FakeBrowser(env.broker);
    expect((await browser.signInByPassword(OWNER, 'correct horse 1')).status).toBe(303);
    // A provisional session: it ends at the confirmation deadline.
    const cookie = browser.received.find((l) => l.startsWith('platform_session=')) ?? '';
    expect(cookie).toContain('Max-Age=86400');
    expect((await browser.navigate('/app')).status).toBe(200);
    expect((await browser.session()).status).toBe(200);
  });

  it('keeps the control plane from an unconfirmed owner: owner-only actions wait for confirmation', async () => {
    const dashboard = await browser.request(dashboardPaths.page, {
      headers: { accept: 'application/json' },
    });
    expect(dashboard.status).toBe(403);
    expect(await dashboard.json()).toMatchObject({
      error: {
        code: 'PERMISSION_DENIED',
        message: expect.stringContaining('confirms their email'),
      },
    });
  });

  it('pauses every app of the owner at the deadline: verification page, APIs refused, sessions revoked', async () => {
    const sessionId = (browser.cookie('platform_session') ?? '').split('.')[0] ?? '';
    env.clock.advance(DAY + HOUR);
    const page = await browser.navigate('/app');
    expect(page.status).toBe(503);
    const html = await page.text();
    expect(html).toContain('Verification required');
    expect(html).not.toContain('app page');
    const api = await env.broker.app.request('/_platform/api/functions/anything', {
      method: 'POST',
    });
    expect(api.status).toBe(503);
    expect(await api.json()).toMatchObject({
      error: { code: 'ACCOUNT_VERIFICATION_REQUIRED', retryable: false },
    });
    expect(await env.broker.auth.activeSession(sessionId)).toBeUndefined();
    expect(await env.broker.auth.appPaused()).toBe(true);
    // Data is kept: the account and its app still exist; sign-in pages still render.
    expect((await browser.navigate('/_platform/auth/sign-in')).status).toBe(200);
  });

  it('resends the verification and resumes the app on confirmation', async () => {
    const page = await browser.navigate('/app');
    const csrf = field(await page.text(), 'csrf');
    const resent = await browser.request('/_platform/auth/resend-verification', { form: { csrf } });
    expect(await resent.text()).toContain('A new confirmation link was sent');
    const token = await latestLinkToken(env.broker, OWNER);
    expect((await new FakeBrowser(env.broker).confirmLink(token)).status).toBe(200);
    expect(await env.broker.auth.appPaused()).toBe(false);
    expect((await browser.navigate('/app')).status).toBe(200);
    expect(await env.broker.auth.owner()).toMatchObject({
      state: 'confirmed',
      confirmDeadline: null,
    });
  });
});
