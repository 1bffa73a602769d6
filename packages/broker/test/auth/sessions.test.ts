import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_REUSE_INTERVAL_MS } from '../../src/auth/sessions.ts';
import { authBroker, DAY, FakeBrowser, HOUR, MINUTE } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const ADA = 'ada@example.com';

beforeAll(async () => {
  env = await authBroker({ auth: { visibility: 'public' } });
});
afterAll(() => env?.cleanup());

describe('the session route (browserRoutes.session)', () => {
  it('answers nulls without a session cookie', async () => {
    const browser = new FakeBrowser(env.broker);
    expect(await browser.session()).toEqual({
      status: 200,
      body: { user: null, token: null, expiresAt: null },
    });
  });

  it('answers the user, a 1-hour access JWT for this app, and never a refresh token', async () => {
    const browser = new FakeBrowser(env.broker);
    expect((await browser.signInByEmail(ADA)).status).toBe(200);
    const { status, body } = await browser.session();
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'token', 'user']);
    expect(body.user).toEqual({ id: expect.any(String), email: ADA });
    const claims = decodeJwt(String(body.token));
    expect(claims.aud).toBe('notes');
    expect(claims.sub).toBe((body.user as { id: string }).id);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);
    expect(Date.parse(String(body.expiresAt))).toBe(env.clock.now().getTime() + HOUR);
    expect(JSON.stringify(body)).not.toContain(browser.cookie('platform_session')?.split('.')[1]);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, Path=/ for the fixed 30 days', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    const line = browser.received.find(
      (l) => l.startsWith('platform_session=') && !l.includes('Max-Age=0'),
    );
    expect(line).toMatch(/; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(line).not.toContain('Secure');
  });

  it('marks every cookie Secure on https', async () => {
    const browser = new FakeBrowser(env.broker, 'https://notes.example');
    await browser.signInByEmail(ADA);
    expect(browser.received.length).toBeGreaterThanOrEqual(3);
    for (const line of browser.received) expect(line).toContain('; Secure');
  });

  it('rotates the refresh token on every refresh; reuse of an old one revokes the session', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    const first = browser.cookie('platform_session') as string;
    const { body } = await browser.session();
    const second = browser.cookie('platform_session') as string;
    expect(second).not.toBe(first);
    expect(second.split('.')[0]).toBe(first.split('.')[0]);
    // A copy of the old cookie, presented after the reuse interval: the session is revoked.
    env.clock.advance(REFRESH_REUSE_INTERVAL_MS + 1000);
    const thief = new FakeBrowser(env.broker);
    thief.jar.set('platform_session', { value: first, path: '/', attributes: '' });
    expect((await thief.session()).status).toBe(401);
    // The legitimate browser is signed out too, and its old access token stops working.
    const after = await browser.session();
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    expect(browser.cookie('platform_session')).toBeUndefined();
    const call = await env.broker.app.request('/rest/v1/nothing', {
      headers: { authorization: `Bearer ${body.token}` },
    });
    expect(call.status).toBe(401);
  });

  it('accepts the just-replaced token within the reuse interval (two tabs refreshing together)', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    const old = browser.cookie('platform_session') as string;
    await browser.session();
    const tab = new FakeBrowser(env.broker);
    tab.jar.set('platform_session', { value: old, path: '/', attributes: '' });
    expect((await tab.session()).status).toBe(200);
    expect((await browser.session()).status).toBe(200);
  });

  it('lets a session live exactly 30 days, however often it refreshes', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    env.clock.advance(29 * DAY + 23 * HOUR + 30 * MINUTE);
    const late = await browser.session();
    expect(late.status).toBe(200);
    // The access token never outlives the session.
    expect(Date.parse(String(late.body.expiresAt))).toBe(env.clock.now().getTime() + 30 * MINUTE);
    env.clock.advance(31 * MINUTE);
    expect((await browser.session()).status).toBe(401);
  });

  it('gives each sign-in its own session; sign-out ends only that browser', async () => {
    const one = new FakeBrowser(env.broker);
    const two = new FakeBrowser(env.broker);
    await one.signInByEmail(ADA);
    await two.signInByEmail(ADA);
    expect(one.cookie('platform_session')?.split('.')[0]).not.toBe(
      two.cookie('platform_session')?.split('.')[0],
    );
    const token = (await one.session()).body.token;
    // GET only asks.
    expect((await one.navigate('/_platform/auth/sign-out')).status).toBe(200);
    expect((await one.session()).status).toBe(200);
    const csrf = await one.csrf();
    const out = await one.request('/_platform/auth/sign-out', { form: { csrf, returnTo: '/' } });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/_platform/auth/sign-in?returnTo=%2F');
    expect(await one.session()).toEqual({
      status: 200,
      body: { user: null, token: null, expiresAt: null },
    });
    expect((await two.session()).status).toBe(200);
    const call = await env.broker.app.request('/rest/v1/nothing', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(call.status).toBe(401);
  });

  it('refuses sign-out without the form token (CSRF)', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    const forged = await browser.request('/_platform/auth/sign-out', { form: { csrf: 'guess' } });
    expect(forged.status).toBe(403);
    const csrf = await browser.csrf();
    const crossSite = await browser.request('/_platform/auth/sign-out', {
      form: { csrf },
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    expect((await browser.session()).status).toBe(200);
  });

  it('refuses the session route to other origins', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    const response = await browser.request('/_platform/api/session', {
      method: 'POST',
      origin: 'https://evil.example',
    });
    expect(response.status).toBe(403);
  });

  it('rejects an access JWT once it expires (1 hour)', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    const { token } = (await browser.session()).body;
    const headers = { authorization: `Bearer ${token}` };
    expect((await env.broker.app.request('/rest/v1/nothing', { headers })).status).not.toBe(401);
    env.clock.advance(HOUR);
    expect((await env.broker.app.request('/rest/v1/nothing', { headers })).status).toBe(401);
  });
});
