import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser, field, latestLinkToken } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const OWNER = 'owner@localhost';
const ADA = 'ada@example.com';

const files = {
  'migrations/001_notes.sql': `
create table notes (id uuid primary key default gen_random_uuid(), owner_id uuid default auth.uid(), body text);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`,
};

beforeAll(async () => {
  env = await authBroker({ files });
  // A stand-in frontend, mounted after admission like platform dev's.
  env.broker.app.get('/app/*', (c) => c.html('<h1>private page</h1>'));
});
afterAll(() => env?.cleanup());

describe('private-app admission (spec 1.2, 5.3)', () => {
  it('redirects an unauthenticated browser to sign-in and back to the original URL', async () => {
    const browser = new FakeBrowser(env.broker);
    const page = await browser.navigate('/app/notes?tab=2');
    expect(page.status).toBe(302);
    const location = new URL(page.headers.get('location') as string, 'http://localhost');
    expect(location.pathname).toBe('/_platform/auth/sign-in');
    expect(location.searchParams.get('returnTo')).toBe('http://localhost/app/notes?tab=2');
    const token = await browser.requestLink(OWNER, location.searchParams.get('returnTo') as string);
    await browser.confirmLink(token);
    const claim = await browser.request('/_platform/auth/claim', { method: 'POST' });
    expect(claim.headers.get('location')).toBe('/app/notes?tab=2');
    expect((await browser.navigate('/app/notes?tab=2')).status).toBe(200);
  });

  it('answers AUTH_REQUIRED to API calls without a session, and lets the session route say "signed out"', async () => {
    const rest = await env.broker.app.request('/rest/v1/notes');
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    const fn = await env.broker.app.request('/_platform/api/functions/anything', {
      method: 'POST',
    });
    expect(fn.status).toBe(401);
    expect((await new FakeBrowser(env.broker).session()).body).toEqual({
      user: null,
      token: null,
      expiresAt: null,
    });
  });

  it('gives a signed-in account without a grant HTTP 403 before any page or API', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    const page = await browser.navigate('/app/notes');
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain(`platform access grant ${ADA}`);
    expect(html).not.toContain('private page');
    const session = await browser.session();
    expect(session.status).toBe(403);
    expect(session.body).toMatchObject({ error: { code: 'ACCESS_DENIED' } });
    const unknown = await browser.navigate('/no/such/page');
    expect(unknown.status).toBe(403);
  });

  it('admits a granted account, and refuses it again from the next request after revoke', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    expect(await env.broker.auth.grantAccess(ADA)).toBe(true);
    expect((await browser.navigate('/app/notes')).status).toBe(200);
    const { token } = (await browser.session()).body;
    const headers = { authorization: `Bearer ${token}` };
    expect((await env.broker.app.request('/rest/v1/notes', { headers })).status).toBe(200);
    await env.broker.auth.revokeAccess(ADA);
    expect((await browser.navigate('/app/notes')).status).toBe(403);
    expect((await env.broker.app.request('/rest/v1/notes', { headers })).status).toBe(403);
  });

  it('refuses a granted account that is still unconfirmed (spec 3.3), saying so and offering a new link', async () => {
    const browser = new FakeBrowser(env.broker);
    const registered = await browser.signInByPassword('fresh@example.com', 'correct horse 1');
    expect(registered.status).toBe(303);
    // Before the grant, what it lacks is the grant.
    expect(await (await browser.navigate('/app/notes')).text()).toContain(
      'platform access grant fresh@example.com',
    );
    await env.broker.auth.grantAccess('fresh@example.com');
    // After it, the grant is not what is missing: the page says to confirm the address.
    const page = await browser.navigate('/app/notes');
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain('Confirm your email address');
    expect(html).not.toContain('platform access grant');
    expect(html).not.toContain('private page');
    const api = await browser.session();
    expect(api.status).toBe(403);
    expect(api.body).toMatchObject({
      error: {
        code: 'ACCESS_DENIED',
        message: expect.stringContaining('once it confirms its email address'),
        details: { reason: 'EMAIL_UNCONFIRMED' },
      },
    });
    // Its button sends a new confirmation link to that address.
    const before = (await env.broker.outbox.list(100)).length;
    const sent = await browser.request('/_platform/auth/resend-verification', {
      form: { csrf: field(html, 'csrf') },
    });
    expect(sent.status).toBe(403);
    expect(await sent.text()).toContain('A new confirmation link was sent to fresh@example.com');
    const outbox = await env.broker.outbox.list(100);
    expect(outbox.length).toBe(before + 1);
    expect(outbox[0]?.to).toContain('fresh@example.com');
    // Confirmed through that link, the account opens the app.
    const token = await latestLinkToken(env.broker, 'fresh@example.com');
    expect((await browser.confirmLink(token)).status).toBe(200);
    expect((await browser.navigate('/app/notes')).status).toBe(200);
  });

  it('rejects a forged or foreign bearer credential', async () => {
    for (const credential of ['eyJhbGciOiJIUzI1NiJ9.e30.x', 'plat_app_forged']) {
      const response = await env.broker.app.request('/rest/v1/notes', {
        headers: { authorization: `Bearer ${credential}` },
      });
      expect(response.status).toBe(401);
    }
  });
});

describe('public apps', () => {
  let pub: Awaited<ReturnType<typeof authBroker>>;
  beforeAll(async () => {
    pub = await authBroker({ files, auth: { visibility: 'public' } });
    pub.broker.app.get('/app/*', (c) => c.html('<h1>public page</h1>'));
  });
  afterAll(() => pub?.cleanup());

  it('serve anonymous visitors and signed-in accounts without grants', async () => {
    expect((await new FakeBrowser(pub.broker).navigate('/app/x')).status).toBe(200);
    expect((await pub.broker.app.request('/rest/v1/notes')).status).toBe(200);
    const browser = new FakeBrowser(pub.broker);
    await browser.signInByEmail(ADA);
    expect((await browser.navigate('/app/x')).status).toBe(200);
    expect((await browser.session()).status).toBe(200);
  });
});
