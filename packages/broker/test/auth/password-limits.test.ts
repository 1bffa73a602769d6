// Password limits over real HTTP on loopback: simultaneous attempts cannot slip past them
// while earlier ones are still being checked, and on one machine (every client is 127.0.0.1)
// one browser's failures do not lock everyone else out.
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
});
