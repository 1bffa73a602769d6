// Account pre-hijacking, over real HTTP on loopback: someone registers another person's address
// with a password before its owner ever signs in. Confirming the address must not hand the
// registrant the owner's account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, DAY, FakeBrowser, field, latestLinkToken } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const ATTACKER_PASSWORD = 'attacker pass 1';

beforeAll(async () => {
  env = await authBroker({ auth: { visibility: 'private' } });
  env.broker.app.get('/app', (c) => c.html('<h1>private page</h1>'));
});
afterAll(() => env?.cleanup());

/** The attacker registers `email` with a password: an unconfirmed account, a provisional session. */
async function preRegister(email: string): Promise<FakeBrowser> {
  const attacker = FakeBrowser.overHttp(env.broker);
  expect((await attacker.signInByPassword(email, ATTACKER_PASSWORD)).status).toBe(303);
  expect(await sessionLive(attacker)).toBe(true);
  return attacker;
}

/** Whether the browser's session cookie names a live session (private apps refuse the route). */
async function sessionLive(browser: FakeBrowser): Promise<boolean> {
  const id = (browser.cookie('platform_session') ?? '').split('.')[0] ?? '';
  return (await env.broker.auth.activeSession(id)) !== undefined;
}

/** Whether the attacker's password still opens the account from a fresh browser. */
async function passwordWorks(email: string): Promise<boolean> {
  const fresh = FakeBrowser.overHttp(env.broker);
  return (await fresh.signInByPassword(email, ATTACKER_PASSWORD)).status === 303;
}

describe('account pre-hijacking', () => {
  it("the owner's email-link sign-in ends the registrant's sessions and drops their password", async () => {
    const victim = 'victim@example.com';
    await env.broker.auth.grantAccess(victim);
    const attacker = await preRegister(victim);
    // Unconfirmed: no private app of another owner yet.
    expect((await attacker.navigate('/app')).status).toBe(403);

    const owner = FakeBrowser.overHttp(env.broker);
    expect((await owner.signInByEmail(victim)).status).toBe(200);
    expect((await owner.navigate('/app')).status).toBe(200);

    // The registrant's provisional session was not adopted: signed out. (Node's fetch sends
    // `Sec-Fetch-Mode: cors`, so the private app answers as to an API call.)
    const page = await attacker.navigate('/app');
    expect(page.status).toBe(401);
    expect(await page.json()).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    expect(await sessionLive(attacker)).toBe(false);
    expect(await passwordWorks(victim)).toBe(false);
    // The owner stays signed in.
    expect(await sessionLive(owner)).toBe(true);
  });

  it('confirming the registration email in another browser adopts nothing either', async () => {
    const victim = 'victim2@example.com';
    const attacker = await preRegister(victim);
    const owner = FakeBrowser.overHttp(env.broker);
    const token = await latestLinkToken(env.broker, victim);
    expect((await owner.confirmLink(token)).status).toBe(200);
    expect(await env.broker.auth.account(victim)).toMatchObject({
      state: 'confirmed',
      hasPassword: false,
    });
    expect(await sessionLive(attacker)).toBe(false);
    expect(await passwordWorks(victim)).toBe(false);
  });

  it("the registering browser's own confirmation keeps its session, now for 30 days, and its password", async () => {
    const email = 'self@example.com';
    const registrant = await preRegister(email);
    const token = await latestLinkToken(env.broker, email);
    expect((await registrant.confirmLink(token)).status).toBe(200);
    expect(await env.broker.auth.account(email)).toMatchObject({
      state: 'confirmed',
      hasPassword: true,
    });
    env.clock.advance(DAY);
    expect(await sessionLive(registrant)).toBe(true);
    expect(await passwordWorks(email)).toBe(true);
  });

  it("a password change ends the account's other sessions, not the one that changed it", async () => {
    const email = 'changer@example.com';
    const here = FakeBrowser.overHttp(env.broker);
    const elsewhere = FakeBrowser.overHttp(env.broker);
    expect((await here.signInByEmail(email)).status).toBe(200);
    expect((await elsewhere.signInByEmail(email)).status).toBe(200);
    const prefs = await here.navigate('/_platform/auth/preferences');
    const csrf = field(await prefs.text(), 'csrf');
    const password = 'a new password 1';
    const set = await here.request('/_platform/auth/preferences/password', {
      form: { csrf, password, confirmPassword: password },
    });
    expect(set.status).toBe(200);
    expect(await set.text()).toContain('signed out');
    expect(await sessionLive(elsewhere)).toBe(false);
    expect(await sessionLive(here)).toBe(true);
  });
});
