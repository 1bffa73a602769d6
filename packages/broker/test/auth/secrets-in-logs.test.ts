import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;

beforeAll(async () => {
  env = await authBroker({ auth: { ownerEmail: 'owner@example.com' } });
});
afterAll(() => env?.cleanup());

describe('no credential reaches the logs', () => {
  it('keeps passwords, cookies, access JWTs and app tokens out of everything printed', async () => {
    const secrets: string[] = ['hunter2 is my password', 'a wrong password'];
    const owner = new FakeBrowser(env.broker);
    await owner.signInByEmail('owner@example.com');
    const { token } = (await owner.session()).body;
    secrets.push(String(token));
    const registering = new FakeBrowser(env.broker);
    await registering.signInByPassword('new@example.com', secrets[0] as string);
    await registering.signInByPassword('new@example.com', secrets[1] as string);
    for (const browser of [owner, registering]) {
      for (const cookie of browser.received) {
        const value = cookie.split(';')[0]?.split('=')[1] ?? '';
        if (value.length > 0)
          secrets.push(value, ...value.split('.').filter((part) => part.length >= 16));
      }
    }
    const created = await env.broker.auth.appTokens.issue('ci');
    secrets.push(created.token);
    await env.broker.app.request('/rest/v1/none', {
      headers: { authorization: `Bearer ${created.token}` },
    });
    await env.broker.app.request('/rest/v1/none', {
      headers: { authorization: `Bearer ${token}x` },
    });
    const printed = [
      ...env.lines,
      ...env.broker.logs.list({ limit: 1000 }).map((r) => JSON.stringify(r)),
    ].join('\n');
    expect(env.lines.some((line) => line.includes('[auth] Sign in to notes'))).toBe(true);
    for (const secret of secrets) expect(printed).not.toContain(secret);
  });
});
