// Deleting the owner of an app other members use (spec 3.5), in an organisation with a central
// store: the app stays, its ownership passes to an administrator, the membership goes, and the
// address joins again only by an administrator's invitation.
import { errorFromResponse } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import type { Database } from '../../src/db/database.ts';
import { orgApiPaths, ownerApiPaths } from '../../src/http/paths.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { FakeBrowser, TestClock } from '../auth/helpers.ts';
import { openTestCentral, testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const tokensPath = ownerApiPaths.tokens.replace(':appId', 'notes');

const OWNER = 'owner@localhost';
const ADA = 'ada@example.com';
const BOB = 'bob@example.com';

let central: Database;
let broker: Broker;
let removeDir: () => Promise<void>;
const clock = new TestClock();
const members = () => new Memberships(central);

const ownerApi = (path: string, method = 'GET', body?: unknown) =>
  broker.app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${broker.auth.brokerKey}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const account = '/_platform/auth/account';

async function deleteAccount(browser: FakeBrowser, typed: string) {
  const page = await (await browser.navigate(account)).text();
  const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
  const response = await browser.request(`${account}/delete`, { form: { csrf, email: typed } });
  const html = await response.text();
  return { status: response.status, html, code: /data-code="([^"]+)"/.exec(html)?.[1] };
}

const signedIn = async (email: string) => {
  const browser = new FakeBrowser(broker);
  await browser.signInByEmail(email);
  return browser;
};

const idOf = async (email: string) => (await broker.auth.account(email))?.id as string;

beforeAll(async () => {
  central = await openTestCentral();
  const dir = await tempDir('owner-deletion-');
  removeDir = dir.remove;
  broker = await startBroker({
    appDir: dir.path,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    inMemory: true,
    snapshotPath: testSnapshotPath,
    logWriter: () => {},
    central,
    auth: { appId: 'notes', passwordCost: 10, clock, visibility: 'private' },
  });
  // The configured owner founded the organisation; it invites the others in.
  for (const email of [ADA, BOB]) await members().invite((await broker.auth.owner()).id, email);
  const accounts = new Accounts(central, broker.db, clock);
  await accounts.create(ADA, 'confirmed');
  await accounts.create(BOB, 'confirmed');
  await broker.auth.grantAccess(BOB);
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await central?.close();
  await removeDir?.();
});

describe('deleting the owner of an organisation app', { timeout: 30_000 }, () => {
  let ownerId = '';

  it('refuses the only administrator until another member is administrator', async () => {
    ownerId = await idOf(OWNER);
    const owner = await signedIn(OWNER);
    expect(await deleteAccount(owner, OWNER)).toMatchObject({
      status: 409,
      code: 'LAST_ADMINISTRATOR',
    });
    await members().setRole(ownerId, ADA, 'administrator');
  });

  it('keeps the app, hands it to the administrator and removes the membership', async () => {
    const owner = await signedIn(OWNER);
    const done = await deleteAccount(owner, OWNER);
    expect(done.status).toBe(200);
    expect(done.html).toContain('id="deleted"');

    const facts = await (await ownerApi('/v1/apps/notes/authority')).json();
    expect(facts).toMatchObject({ owner: ADA });
    expect(await broker.auth.appState()).toBe('active');
    // The app goes on for its users, and its new owner holds the owner's rights.
    expect((await (await signedIn(BOB)).navigate('/')).status).not.toBe(403);
    const ada = await signedIn(ADA);
    const created = await ownerApi(tokensPath, 'POST', { name: 'ci' });
    const reveal = new URL(((await created.json()) as { revealUrl: string }).revealUrl);
    expect((await ada.navigate(`${reveal.pathname}${reveal.search}`)).status).toBe(200);

    await expect
      .poll(
        async () =>
          (
            await central.query(
              'SELECT 1 FROM platform.account_deletions WHERE account_id = $1 AND finished_at IS NOT NULL',
              [ownerId],
            )
          ).rowCount,
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(await members().roleOf(ownerId)).toBeUndefined();
  });

  let again: FakeBrowser;
  it('makes the address a new account outside the organisation when it signs in again', async () => {
    again = await signedIn(OWNER);
    const newId = await idOf(OWNER);
    expect(newId).not.toBe(ownerId);
    expect(await members().roleOf(newId)).toBeUndefined();
    const { rows } = await central.query(
      'SELECT 1 FROM platform.personal_companies WHERE account_id = $1',
      [newId],
    );
    expect(rows).toHaveLength(1);
    expect((await members().list()).map((m) => m.email)).not.toContain(OWNER);
    // Neither owner nor granted: the private app refuses it.
    expect((await again.navigate('/')).status).toBe(403);
  });

  it('lets it back only by an administrator invitation', async () => {
    const byMember = await ownerApi(orgApiPaths.members, 'POST', { email: OWNER, actingAs: BOB });
    expect((await errorFromResponse(byMember)).code).toBe('ROLE_CHANGE_FORBIDDEN');
    expect(await members().roleOf(await idOf(OWNER))).toBeUndefined();

    const invited = await ownerApi(orgApiPaths.members, 'POST', { email: OWNER, actingAs: ADA });
    expect(await invited.json()).toEqual({
      email: OWNER,
      state: 'invited',
      expiresAt: expect.any(String),
    });
    // Being invited moves nothing: the person accepts on their account page.
    expect(await members().roleOf(await idOf(OWNER))).toBeUndefined();
    const page = await (await again.navigate(account)).text();
    expect(page).toContain('Join the organisation');
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
    const joined = await again.request(`${account}/join`, { form: { csrf } });
    expect(joined.status).toBe(200);
    expect(await joined.text()).toContain('You joined the organisation');
    expect(await members().roleOf(await idOf(OWNER))).toBe('member');
    // The invitation email names the account page, and no secret.
    const mail = await broker.outbox.list();
    const invitation = mail.find((m) => m.subject === 'You are invited to join an organisation');
    expect(invitation?.to).toEqual([OWNER]);
    expect(invitation?.text).toContain(`${account}`);
  });
});
