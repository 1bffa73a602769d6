// A sign-in handed from one app of an organisation to another: the one-time code is bound to
// the receiving app and to the nonce cookie of the browser that asked, and is used once; the
// relay sends nowhere but to apps of the organisation, and only to their own paths.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import type { OrgPeer } from '../../src/auth/auth-options.ts';
import type { Database } from '../../src/db/database.ts';
import { openTestCentral, testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { addAccount, FakeBrowser, TestClock } from './helpers.ts';

const PASSWORD = 'a long password';
const cleanups: (() => Promise<void>)[] = [];
let central: Database;
let alpha: Broker;
let beta: Broker;
const peers: OrgPeer[] = [];

beforeAll(async () => {
  central = await openTestCentral();
  cleanups.push(() => central.close());
  const clock = new TestClock(Date.now());
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
