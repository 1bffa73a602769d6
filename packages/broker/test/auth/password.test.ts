import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../../src/auth/passwords.ts';
import { authBroker, DAY, FakeBrowser, latestLinkToken, MINUTE } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const PASSWORD = 'correct horse 1';

beforeAll(async () => {
  env = await authBroker({ auth: { visibility: 'public' } });
});
afterAll(() => env?.cleanup());

describe('passwords', () => {
  it('are stored only as an scrypt verifier in the platform schema', async () => {
    const verifier = await hashPassword(PASSWORD, 10);
    expect(verifier).toMatch(/^scrypt\$10\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword(PASSWORD, verifier)).toBe(true);
    expect(await verifyPassword('correct horse 2', verifier)).toBe(false);
    expect(await burnPasswordCheck(PASSWORD, 10)).toBe(false);
    await new FakeBrowser(env.broker).signInByPassword('reg@example.com', PASSWORD);
    const { rows } = await env.broker.db.query<{ password_verifier: string }>(
      "select password_verifier from platform.accounts where email = 'reg@example.com'",
    );
    expect(rows[0]?.password_verifier).toMatch(/^scrypt\$/);
    // No app role can reach the platform schema.
    await expect(
      env.broker.db.transaction(async (tx) => {
        await tx.query('set local role authenticated');
        return tx.query('select * from platform.accounts');
      }),
    ).rejects.toThrow(/permission denied/);
  });

  it('have 8 to 72 characters', async () => {
    const browser = new FakeBrowser(env.broker);
    expect((await browser.signInByPassword('len@example.com', 'short')).status).toBe(400);
    expect((await browser.signInByPassword('len@example.com', 'x'.repeat(73))).status).toBe(400);
    expect((await browser.signInByPassword('len@example.com', 'é'.repeat(72))).status).toBe(303);
  });

  it('register an unknown address: unconfirmed, confirmation email, provisional session until the 24 h deadline', async () => {
    const browser = new FakeBrowser(env.broker);
    const response = await browser.signInByPassword('new@example.com', PASSWORD, '/after');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/after');
    expect(await env.broker.auth.account('new@example.com')).toMatchObject({
      state: 'unconfirmed',
    });
    const line = browser.received.find((l) => l.startsWith('platform_session='));
    expect(line).toContain('Max-Age=86400');
    const [message] = await env.broker.outbox.list(1);
    expect(message).toMatchObject({
      to: ['new@example.com'],
      subject: 'Confirm your email for notes',
    });
    expect((await browser.session()).status).toBe(200);
    env.clock.advance(DAY);
    expect((await browser.session()).status).toBe(401);
    expect(await env.broker.auth.account('new@example.com')).toMatchObject({
      state: 'paused',
    });
  });

  it('confirming within 24 h turns the provisional session into a normal 30-day one', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByPassword('conf@example.com', PASSWORD);
    const token = await latestLinkToken(env.broker, 'conf@example.com');
    env.clock.advance(10 * MINUTE);
    // Confirmed in the registering browser itself: only then is its session kept.
    expect((await browser.confirmLink(token)).status).toBe(200);
    expect(await env.broker.auth.account('conf@example.com')).toMatchObject({
      state: 'confirmed',
    });
    env.clock.advance(DAY);
    expect((await browser.session()).status).toBe(200);
  });

  it('sign in a confirmed account with a password at once, in its own session', async () => {
    const first = new FakeBrowser(env.broker);
    await first.signInByEmail('pat@example.com');
    const prefs = await first.navigate('/_platform/auth/preferences');
    expect(prefs.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await prefs.text())?.[1] as string;
    const differ = await first.request('/_platform/auth/preferences/password', {
      form: { csrf, password: PASSWORD, confirmPassword: 'other one' },
    });
    expect(differ.status).toBe(400);
    const set = await first.request('/_platform/auth/preferences/password', {
      form: { csrf, password: PASSWORD, confirmPassword: PASSWORD },
    });
    expect(set.status).toBe(200);
    const second = new FakeBrowser(env.broker);
    expect((await second.signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    expect((await second.session()).body.user).toMatchObject({ email: 'pat@example.com' });
    // Email-link access stays.
    const third = new FakeBrowser(env.broker);
    expect((await third.signInByEmail('pat@example.com')).status).toBe(200);
    expect(first.cookie('platform_session')).not.toBe(second.cookie('platform_session'));
  });

  it('refuse a wrong password and an account without one alike', async () => {
    await new FakeBrowser(env.broker).signInByEmail('linkonly@example.com');
    const browser = new FakeBrowser(env.broker);
    const wrong = await browser.signInByPassword('pat@example.com', 'wrong password');
    const none = await browser.signInByPassword('linkonly@example.com', 'wrong password');
    expect([wrong.status, none.status]).toEqual([401, 401]);
    expect(await wrong.text()).toContain('Wrong email or password');
    expect(browser.cookie('platform_session')).toBeUndefined();
  });

  it('limit failed attempts: 5 per address per 15 minutes, then RATE_LIMITED (429)', async () => {
    const browser = new FakeBrowser(env.broker);
    await new FakeBrowser(env.broker).signInByPassword('target@example.com', PASSWORD);
    for (let i = 0; i < 5; i++)
      expect((await browser.signInByPassword('target@example.com', `guess ${i}xx`)).status).toBe(
        401,
      );
    const blocked = await browser.signInByPassword('target@example.com', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('x-platform-error')).toBe('RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    env.clock.advance(15 * MINUTE);
    expect((await browser.signInByPassword('target@example.com', PASSWORD)).status).toBe(303);
  });

  it('limit failed attempts per client: 20 per 15 minutes across addresses', async () => {
    const browser = new FakeBrowser(env.broker);
    const known = ['reg', 'linkonly', 'target', 'len'];
    for (let i = 0; i < 20; i++) {
      const response = await browser.signInByPassword(
        `${known[i % 4]}@example.com`,
        'wrong password',
      );
      expect(response.status).toBe(401);
    }
    // A sixth address with the right password: the client is blocked.
    expect((await browser.signInByPassword('conf@example.com', PASSWORD)).status).toBe(429);
    env.clock.advance(15 * MINUTE);
  });

  it('refuse a password post without the form token (CSRF)', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.navigate('/_platform/auth/sign-in');
    const response = await browser.request('/_platform/auth/password', {
      form: { email: 'pat@example.com', password: PASSWORD },
    });
    expect(response.status).toBe(403);
  });
});
