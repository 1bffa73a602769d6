// Password limits over real HTTP on loopback: simultaneous attempts cannot slip past them
// while earlier ones are still being checked, and on one machine (every client is 127.0.0.1)
// one browser's failures do not lock everyone else out; one browser registers a handful of
// accounts, not an unbounded number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAccount, authBroker, FakeBrowser, MINUTE } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const PASSWORD = 'correct horse 1';

beforeAll(async () => {
  env = await authBroker({ auth: { visibility: 'public' } });
  for (const name of ['target', 'a', 'b', 'c', 'd', 'e', 'dev'])
    await addAccount(env.broker, `${name}@example.com`, PASSWORD);
});
afterAll(() => env?.cleanup());

/** `count` wrong passwords for `email` posted at the same moment by one browser. */
async function burst(email: string, count: number): Promise<number[]> {
  const browser = FakeBrowser.overHttp(env.broker);
  const csrf = await browser.csrf();
  const posts = Array.from({ length: count }, (_, i) =>
    browser.request('/_platform/auth/password', {
      form: { email, password: `wrong guess ${i}`, returnTo: '/', csrf },
    }),
  );
  return (await Promise.all(posts)).map((r) => r.status);
}

describe('password limits', () => {
  it('hold against 150 simultaneous wrong passwords: only 5 are checked', async () => {
    const statuses = await burst('target@example.com', 150);
    const checked = statuses.filter((s) => s === 401).length;
    const limited = statuses.filter((s) => s === 429).length;
    expect({ checked, limited }).toEqual({ checked: 5, limited: 145 });
    // The right password is refused too until the window frees up.
    const owner = FakeBrowser.overHttp(env.broker);
    expect((await owner.signInByPassword('target@example.com', PASSWORD)).status).toBe(429);
    env.clock.advance(15 * MINUTE + 1000);
    expect((await owner.signInByPassword('target@example.com', PASSWORD)).status).toBe(303);
  });

  it("one local browser's failures across addresses do not lock out another browser", async () => {
    const sprayer = FakeBrowser.overHttp(env.broker);
    for (let i = 0; i < 20; i++) {
      const email = `${'abcde'[i % 5]}@example.com`;
      expect((await sprayer.signInByPassword(email, 'wrong password')).status).toBe(401);
    }
    // The spraying browser is held back...
    expect((await sprayer.signInByPassword('dev@example.com', PASSWORD)).status).toBe(429);
    // ...but the developer's own browser, also on 127.0.0.1, still signs in.
    const developer = FakeBrowser.overHttp(env.broker);
    expect((await developer.signInByPassword('dev@example.com', PASSWORD)).status).toBe(303);
  });

  it('hold registrations: 5 new accounts per browser per 15 minutes, also when posted at once', async () => {
    const before = (await env.broker.outbox.list(500)).length;
    const registrar = FakeBrowser.overHttp(env.broker);
    const csrf = await registrar.csrf();
    const posts = Array.from({ length: 25 }, (_, i) =>
      registrar.request('/_platform/auth/password', {
        form: { email: `new${i}@example.com`, password: PASSWORD, returnTo: '/', csrf },
      }),
    );
    const responses = await Promise.all(posts);
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 303)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const refused = responses.find((r) => r.status === 429) as Response;
    expect(refused.headers.get('x-platform-error')).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many new accounts');
    // Five accounts, five confirmation emails: nothing for the refused ones.
    expect((await env.broker.outbox.list(500)).length - before).toBe(5);
    // Signing in to an existing account is not a registration and still works.
    expect((await registrar.signInByPassword('dev@example.com', PASSWORD)).status).toBe(303);
    // Another browser registers; this one again once the window has passed.
    const other = FakeBrowser.overHttp(env.broker);
    expect((await other.signInByPassword('other@example.com', PASSWORD)).status).toBe(303);
    expect((await registrar.signInByPassword('late@example.com', PASSWORD)).status).toBe(429);
    env.clock.advance(15 * MINUTE + 1000);
    expect((await registrar.signInByPassword('late@example.com', PASSWORD)).status).toBe(303);
  });
});
