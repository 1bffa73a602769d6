// Onboarding's edges (spec 5.2): an existing address, replayed, unknown and expired links, a
// confirmation without the review page's cookie, the agent's wrong or repeated claims.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { FakeBrowser, field, HOUR, TestClock } from '../auth/helpers.ts';
import { copyExample, devFor } from '../e2e/helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
const clock = new TestClock(Date.now());

const api = async (path: string, body: unknown) => {
  const response = await fetch(`${dev.url}/v1/apps/${dev.broker.appId}/onboarding${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${dev.devToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown> & { error?: { code: string } };
  return { status: response.status, body: json, code: json.error?.code };
};

/** The link of the latest onboarding email to `email`. */
const linkTo = async (email: string) => {
  const [mail] = (await dev.broker.outbox.list()).filter((m) => m.to.includes(email));
  const url = new URL(
    /(http:\S+\/confirm\/onboarding\?token=\S+)/.exec(mail?.text ?? '')?.[1] ?? '',
  );
  return {
    path: `${url.pathname}${url.search}`,
    token: url.searchParams.get('token') ?? '',
    subject: mail?.subject,
  };
};

/** Opens the link's review page in `browser` and confirms it. */
const confirm = async (browser: FakeBrowser, path: string) => {
  const review = await browser.navigate(path);
  const html = await review.text();
  return browser.request('/_platform/auth/confirm/onboarding', {
    form: { token: field(html, 'token'), preview: field(html, 'preview') },
  });
};

beforeAll(async () => {
  app = await copyExample('private-notes');
  ({ dev } = await devFor(app.path, { watch: false, inMemory: true, clock }, 'sign-in'));
}, 120_000);
afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

describe('onboarding', { timeout: 60_000 }, () => {
  it('asks an existing account for approval, and withholds everything until then', async () => {
    const started = await api('', { email: 'owner@localhost' });
    expect(started).toMatchObject({ status: 201, body: { state: 'approval_required' } });
    const { requestId, claimSecret } = started.body as { requestId: string; claimSecret: string };
    expect((await api(`/${requestId}`, { claimSecret })).body).not.toHaveProperty(
      'agentCredential',
    );
    const link = await linkTo('owner@localhost');
    expect(link.subject).toBe(`Approve a coding agent for ${dev.broker.appId}`);
    const browser = new FakeBrowser(dev.broker);
    const confirmed = await confirm(browser, link.path);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`/_platform/auth/onboarding/${requestId}`);
    // Approving is all an existing account needs: no company setup.
    const finished = await api(`/${requestId}`, { claimSecret });
    expect(finished.body).toMatchObject({
      state: 'finished',
      agentCredential: { appId: dev.broker.appId },
    });
    // Once only.
    expect((await api(`/${requestId}`, { claimSecret })).code).toBe('ONBOARDING_REQUEST_EXPIRED');
  });

  it('refuses replayed and unknown links, and a confirmation without the review page', async () => {
    const { body } = await api('', { email: 'replay@example.com' });
    const link = await linkTo('replay@example.com');
    // Another browser posting the token without the page's cookie approves nothing.
    const stranger = new FakeBrowser(dev.broker);
    const forged = await stranger.request('/_platform/auth/confirm/onboarding', {
      form: { token: link.token, preview: 'guess' },
    });
    expect(forged.status).toBe(403);
    expect((await dev.broker.auth.account('replay@example.com'))?.state).toBe('unconfirmed');
    const browser = new FakeBrowser(dev.broker);
    expect((await confirm(browser, link.path)).status).toBe(303);
    expect((await browser.navigate(link.path)).status).toBe(410);
    expect((await browser.navigate('/_platform/auth/confirm/onboarding?token=nope')).status).toBe(
      404,
    );
    // The launch page is the person's own.
    const launch = `/_platform/auth/onboarding/${body.requestId}`;
    expect((await browser.navigate(launch)).status).toBe(200);
    expect((await new FakeBrowser(dev.broker).navigate(launch)).status).toBe(302);
  });

  it('lets a link expire after 24 hours, pausing the provisional identity', async () => {
    const { body } = await api('', { email: 'late@example.com' });
    const link = await linkTo('late@example.com');
    clock.advance(25 * HOUR);
    expect((await new FakeBrowser(dev.broker).navigate(link.path)).status).toBe(410);
    const late = await api(`/${body.requestId}`, { claimSecret: body.claimSecret });
    expect(late).toMatchObject({ status: 410, code: 'ONBOARDING_REQUEST_EXPIRED' });
    expect((await dev.broker.auth.account('late@example.com'))?.state).toBe('paused');
  });

  it('answers bad input with clear errors', async () => {
    expect((await api('', { email: 'not an address' })).code).toBe('INVALID_INPUT');
    const { body } = await api('', { email: 'guess@example.com' });
    expect((await api(`/${body.requestId}`, { claimSecret: 'wrong' })).code).toBe(
      'ONBOARDING_REQUEST_NOT_FOUND',
    );
    expect((await api(`/${body.requestId}`, {})).code).toBe('INVALID_INPUT');
    const other = await fetch(`${dev.url}/v1/apps/elsewhere/onboarding`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.devToken}`, 'content-type': 'application/json' },
      body: '{"email":"a@example.com"}',
    });
    expect(other.status).toBe(404);
  });

  it('names the company once; later people accept the invitation to it', async () => {
    const join = async (email: string) => {
      const { body } = await api('', { email });
      const browser = new FakeBrowser(dev.broker);
      await confirm(browser, (await linkTo(email)).path);
      const page = `/_platform/auth/onboarding/${body.requestId}/company`;
      const html = await (await browser.navigate(page)).text();
      return { browser, page, html, body };
    };
    const first = await join('first@example.com');
    const empty = await first.browser.request(first.page, {
      form: { csrf: field(first.html, 'csrf'), name: ' ' },
    });
    expect(empty.status).toBe(400);
    const named = await first.browser.request(first.page, {
      form: { csrf: field(first.html, 'csrf'), name: 'Acme' },
    });
    expect(await named.text()).toContain('id="company-done"');
    const second = await join('second@example.com');
    expect(second.html).toContain('You are invited to <b>Acme</b>');
    await second.browser.request(second.page, { form: { csrf: field(second.html, 'csrf') } });
    const status = await second.browser.request(
      `/_platform/auth/onboarding/${second.body.requestId}/status`,
      { headers: { accept: 'application/json' } },
    );
    expect(await status.json()).toMatchObject({ state: 'ready', companySetUp: true });
    // Setting up or accepting moves the account from its personal company into the organisation.
    const members = new Memberships(dev.broker.central);
    for (const email of ['first@example.com', 'second@example.com']) {
      const id = (await dev.broker.auth.account(email))?.id as string;
      expect(await members.roleOf(id), email).toBeDefined();
      const { rows } = await dev.broker.central.query(
        'SELECT 1 FROM platform.personal_companies WHERE account_id = $1',
        [id],
      );
      expect(rows, email).toHaveLength(0);
    }
  });
});
