// One owner per app: with an organisation's central store, the owner its authority facts record
// is the owner everywhere sign-in asks (token approval, reveal links, the control plane, what an
// app access token acts as); an unconfirmed owner does no owner-only action (spec 3.3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import type { Database } from '../../src/db/database.ts';
import { dashboardPaths, ownerApiPaths } from '../../src/http/paths.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { decideRequest, FakeBrowser, TestClock } from '../auth/helpers.ts';
import { openTestCentral, testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const tokensPath = ownerApiPaths.tokens.replace(':appId', 'notes');

const CONFIGURED = 'owner@localhost';
const ADA = 'ada@example.com';
const UNCONFIRMED = 'new@example.com';

let central: Database;
let broker: Broker;
let removeDir: () => Promise<void>;
const clock = new TestClock();

/** A call of the owner API with the broker key (what the CLI sends). */
const ownerApi = (path: string, method = 'GET', body?: unknown) =>
  broker.app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${broker.auth.brokerKey}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** `platform app authority set owner <email>`. */
const setOwner = async (email: string) => {
  const response = await ownerApi('/v1/apps/notes/authority/owner', 'PUT', { account: email });
  expect(response.status).toBe(204);
};

/** A token made for its one-time reveal link, as `platform app access-token create` does. */
const revealPath = async () => {
  const response = await ownerApi(tokensPath, 'POST', { name: 'ci' });
  const { revealUrl } = (await response.json()) as { revealUrl: string };
  const url = new URL(revealUrl);
  return `${url.pathname}${url.search}`;
};

const signedIn = async (email: string) => {
  const browser = new FakeBrowser(broker);
  await browser.signInByEmail(email);
  return browser;
};

let appDir = '';
const start = () =>
  startBroker({
    appDir,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    inMemory: true,
    snapshotPath: testSnapshotPath,
    logWriter: () => {},
    central,
    auth: { appId: 'notes', passwordCost: 10, clock, visibility: 'private' },
  });

beforeAll(async () => {
  central = await openTestCentral();
  const dir = await tempDir('app-owner-');
  removeDir = dir.remove;
  appDir = dir.path;
  broker = await start();
  // Owners are members: the configured owner (the organisation's first account) invites both.
  const members = new Memberships(central, clock);
  for (const email of [ADA, UNCONFIRMED])
    await members.invite((await broker.auth.owner()).id, email);
  const accounts = new Accounts(central, broker.db, clock);
  await accounts.create(ADA, 'confirmed');
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await central?.close();
  await removeDir?.();
});

describe('the owner the organisation records', { timeout: 30_000 }, () => {
  it('is the configured owner until another is recorded', async () => {
    const recorded = await ownerApi('/v1/apps/notes/authority');
    expect(await recorded.json()).toMatchObject({ owner: CONFIGURED });
    expect((await broker.auth.owner()).email).toBe(CONFIGURED);
  });

  it('takes over reveal links, token approval, the control plane and app access tokens at once', async () => {
    await setOwner(ADA);
    const ada = await signedIn(ADA);
    const formerOwner = await signedIn(CONFIGURED);

    const reveal = await revealPath();
    expect((await ada.navigate(reveal)).status).toBe(200);
    expect((await formerOwner.navigate(reveal)).status).toBe(403);

    const asked = await ownerApi(`${tokensPath}/requests`, 'POST', { name: 'cli' });
    const request = (await asked.json()) as { approveUrl: string; userCode: string };
    expect((await formerOwner.navigate(new URL(request.approveUrl).pathname)).status).toBe(403);
    expect((await decideRequest(ada, request)).status).toBe(200);

    expect((await ada.navigate(dashboardPaths.page)).status).toBe(200);
    expect((await formerOwner.navigate(dashboardPaths.page)).status).toBe(403);
    // The private app itself: the new owner needs no grant, the former one has none.
    expect((await ada.navigate('/')).status).not.toBe(403);
    expect((await formerOwner.navigate('/')).status).toBe(403);

    const { token } = await broker.auth.appTokens.issue('runtime');
    const caller = await broker.auth.authenticate(
      new Request('http://localhost/rest/v1/notes', {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    const adaId = (await broker.auth.account(ADA))?.id;
    expect(caller).toEqual({ kind: 'user', userId: adaId });
  });

  it('stays the owner when the broker starts again with its configured owner', async () => {
    // The configured address is only the first owner: starting again does not take the app back.
    await broker.close();
    broker = await start();
    expect((await broker.auth.owner()).email).toBe(ADA);
    expect(await (await ownerApi('/v1/apps/notes/authority')).json()).toMatchObject({ owner: ADA });
  });
});

describe('an unconfirmed owner', { timeout: 30_000 }, () => {
  it('cannot reveal or approve tokens, nor open the control plane', async () => {
    // A password registration of an unknown address: an unconfirmed account, signed in.
    const owner = new FakeBrowser(broker);
    expect((await owner.signInByPassword(UNCONFIRMED, 'correct horse 1')).status).toBe(303);
    await setOwner(UNCONFIRMED);
    expect((await broker.auth.owner()).state).toBe('unconfirmed');

    const reveal = await owner.navigate(await revealPath());
    expect(reveal.status).toBe(403);
    expect(await reveal.text()).toContain('confirms their email address');
    const asked = await ownerApi(`${tokensPath}/requests`, 'POST', { name: 'cli' });
    const request = (await asked.json()) as { approveUrl: string; userCode: string };
    expect((await owner.navigate(new URL(request.approveUrl).pathname)).status).toBe(403);

    const facts = await owner.request('/v1/apps/notes/authority', {
      headers: { accept: 'application/json' },
    });
    expect(facts.status).toBe(403);
    expect(await facts.text()).toContain('confirms their email address');
    expect((await owner.navigate(dashboardPaths.page)).status).toBe(403);
  });
});
