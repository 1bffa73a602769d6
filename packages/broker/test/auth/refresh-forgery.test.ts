// Over real HTTP on loopback: a session id is no secret (every access JWT carries it as `sid`),
// so a made-up refresh value next to it must not sign the browser out. Only a refresh token the
// broker issued and has since rotated out counts as reuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_REUSE_INTERVAL_MS } from '../../src/auth/sessions.ts';
import { authBroker, FakeBrowser } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;

beforeAll(async () => {
  env = await authBroker({ auth: { visibility: 'public' } });
});
afterAll(() => env?.cleanup());

/** A browser holding `value` as its session cookie. */
function holding(value: string): FakeBrowser {
  const browser = FakeBrowser.overHttp(env.broker);
  browser.jar.set('platform_session', { value, path: '/', attributes: '' });
  return browser;
}

describe('refresh tokens', () => {
  it('a wrong refresh value for a known session id is refused without ending the session', async () => {
    const victim = FakeBrowser.overHttp(env.broker);
    expect((await victim.signInByEmail('ada@example.com')).status).toBe(200);
    const { body } = await victim.session();
    // The session id, as any page script can read it from the access JWT.
    const claims = JSON.parse(
      Buffer.from(String(body.token).split('.')[1] ?? '', 'base64url').toString(),
    ) as { sid: string };
    const forged = `${claims.sid}.${'A'.repeat(43)}`;

    const forger = holding(forged);
    expect((await forger.session()).status).toBe(401);
    expect((await forger.request('/_platform/auth/preferences')).status).toBe(302);
    expect((await holding(forged).session()).status).toBe(401);

    const after = await victim.session();
    expect(after.status).toBe(200);
    expect(after.body.user).toMatchObject({ email: 'ada@example.com' });
  });

  it('a token rotated out several refreshes ago still counts as reuse and ends the session', async () => {
    const victim = FakeBrowser.overHttp(env.broker);
    expect((await victim.signInByEmail('bob@example.com')).status).toBe(200);
    const stolen = victim.cookie('platform_session') as string;
    for (let i = 0; i < 3; i++) {
      env.clock.advance(REFRESH_REUSE_INTERVAL_MS + 1000);
      expect((await victim.session()).status).toBe(200);
    }
    expect((await holding(stolen).session()).status).toBe(401);
    expect((await victim.session()).status).toBe(401);
  });
});
