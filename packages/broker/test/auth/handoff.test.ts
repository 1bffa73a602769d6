// A sign-in handed from one app of an organisation to another: the one-time code is bound to
// the receiving app and to the nonce cookie of the browser that asked, and is used once; the
// relay sends nowhere but to apps of the organisation, and only to their own paths; the session
// it starts is as recent as the sign-in it was handed from, and no more (spec 3.5).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import type { OrgPeer } from '../../src/auth/auth-options.ts';
import type { Database } from '../../src/db/database.ts';
import { openTestCentral, testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { addAccount, FakeBrowser, MINUTE, TestClock } from './helpers.ts';

const PASSWORD = 'a long password';
const cleanups: (() => Promise<void>)[] = [];
let central: Database;
let alpha: Broker;
let beta: Broker;
let clock: TestClock;
const peers: OrgPeer[] = [];

beforeAll(async () => {
  central = await openTestCentral();
  cleanups.push(() => central.close());
  clock = new TestClock(Date.now());
  const start = async (appId: string) => {
    const dir = await tempDir('handoff-');
    cleanups.push(dir.remove);
    const broker = await startBroker({
      appDir: dir.path,
      sdkVersion: '2.6.0',
      databaseUrl: '',
      inMemory: true,
      snapshotPath: testSnapshotPath,
      logWriter: () => {},
      central,
      auth: { appId, passwordCost: 10, clock, peers: () => peers },
    });
    cleanups.push(() => broker.close());
    peers.push({ appId, url: broker.server.url });
    return broker;
  };
  alpha = await start('alpha');
  beta = await start('beta');
  await addAccount(alpha, 'pat@example.com', PASSWORD);
  await alpha.auth.grantAccess('pat@example.com');
  await beta.auth.grantAccess('pat@example.com');
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const pathOf = (response: Response) => {
  const location = new URL(response.headers.get('location') ?? '', 'http://unused');
  return `${location.pathname}${location.search}`;
};

describe('a sign-in handed from one app to another', { timeout: 60_000 }, () => {
  it('needs the asking browser’s nonce, works once, and starts the app’s own session', async () => {
    const inAlpha = new FakeBrowser(alpha);
    expect((await inAlpha.signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    const inBeta = new FakeBrowser(beta);
    const asked = await inBeta.navigate('/notes?x=1');
    expect(asked.status).toBe(302);
    expect(asked.headers.get('location')).toMatch(
      new RegExp(`^${alpha.server.url}/_platform/auth/relay\\?`),
    );
    expect(inBeta.cookie('platform_handoff')).toBeDefined();
    const relayed = await inAlpha.navigate(pathOf(asked));
    expect(relayed.status).toBe(302);
    expect(relayed.headers.get('location')).toMatch(
      new RegExp(`^${beta.server.url}/_platform/auth/handoff\\?code=`),
    );

    // Another browser (without the nonce) cannot use the code.
    const thief = new FakeBrowser(beta);
    const stolen = await thief.navigate(pathOf(relayed));
    expect(pathOf(stolen)).toMatch(/^\/_platform\/auth\/sign-in\?/);
    expect(thief.cookie('platform_session')).toBeUndefined();

    const nonce = inBeta.jar.get('platform_handoff');
    expect(nonce).toBeDefined();
    const taken = await inBeta.navigate(pathOf(relayed));
    expect(taken.status).toBe(302);
    expect(taken.headers.get('location')).toBe('/notes?x=1');
    expect((await inBeta.session()).body.user).toMatchObject({ email: 'pat@example.com' });
    expect(inBeta.cookie('platform_session')).not.toBe(inAlpha.cookie('platform_session'));

    // Used once: the right nonce with the same code a second time is the sign-in page.
    const again = new FakeBrowser(beta);
    if (nonce) again.jar.set('platform_handoff', nonce);
    expect(pathOf(await again.navigate(pathOf(relayed)))).toMatch(/^\/_platform\/auth\/sign-in\?/);
  });

  it('sends a browser signed in nowhere on to the asking app’s sign-in page', async () => {
    const nowhere = new FakeBrowser(beta);
    const asked = await nowhere.navigate('/');
    const relayed = await new FakeBrowser(alpha).navigate(pathOf(asked));
    expect(relayed.status).toBe(302);
    expect(relayed.headers.get('location')).toMatch(
      new RegExp(`^${beta.server.url}/_platform/auth/sign-in\\?returnTo=`),
    );
  });

  it('relays only for apps of the organisation and only to their own paths', async () => {
    const browser = new FakeBrowser(alpha);
    const state = 'a'.repeat(64);
    for (const query of [
      `app=shop&state=${state}&to=%2F`,
      `app=alpha&state=${state}&to=%2F`,
      `app=beta&state=${state}&to=%2F%2Fevil.example%2F`,
      `app=beta&state=${state}&to=https%3A%2F%2Fevil.example%2F`,
    ]) {
      expect((await browser.navigate(`/_platform/auth/relay?${query}`)).status, query).toBe(400);
    }
  });
});

const ACCOUNT = '/_platform/auth/account';

/** Hands `from`'s sign-in over to a new browser's session of beta; answers that browser. */
async function relayToBeta(from: FakeBrowser): Promise<FakeBrowser> {
  const inBeta = new FakeBrowser(beta);
  const asked = await inBeta.navigate('/');
  const taken = await inBeta.navigate(pathOf(await from.navigate(pathOf(asked))));
  expect(pathOf(taken)).toBe('/');
  expect((await inBeta.session()).body.user).toMatchObject({ email: 'pat@example.com' });
  return inBeta;
}

/** Posts the account deletion form of `browser`'s account page. */
async function deleteAccount(browser: FakeBrowser, typed: string) {
  const csrf = await browser.csrf();
  const response = await browser.request(`${ACCOUNT}/delete`, { form: { csrf, email: typed } });
  return { status: response.status, code: /data-code="([^"]+)"/.exec(await response.text())?.[1] };
}

describe('the time of a handed-over sign-in', { timeout: 60_000 }, () => {
  it('is the original sign-in’s: a stale sign-in relayed to another app deletes nothing there', async () => {
    const inAlpha = new FakeBrowser(alpha);
    expect((await inAlpha.signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    clock.advance(10 * MINUTE + 12_000);
    const refused = { status: 403, code: 'RECENT_SIGN_IN_REQUIRED' };
    expect(await deleteAccount(inAlpha, 'pat@example.com')).toEqual(refused);
    // The relayed app starts a session of its own, without a new credential: still stale.
    const inBeta = await relayToBeta(inAlpha);
    expect(await (await inBeta.navigate(ACCOUNT)).text()).toContain('id="sign-in-again"');
    expect(await deleteAccount(inBeta, 'pat@example.com')).toEqual(refused);
    const { rowCount } = await central.query('SELECT 1 FROM platform.account_deletions');
    expect(rowCount).toBe(0);
  });

  it('keeps a recent sign-in recent in the app it is handed to', async () => {
    const inAlpha = new FakeBrowser(alpha);
    expect((await inAlpha.signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    clock.advance(2 * MINUTE);
    const page = await (await (await relayToBeta(inAlpha)).navigate(ACCOUNT)).text();
    expect(page).toContain('id="delete"');
    expect(page).not.toContain('id="sign-in-again"');
  });
});
