// Accounts and private-app grants in the organisation's central store: a broker's older in-app
// accounts and grants move there on its first start with a central store; two apps share the
// accounts but not their sessions; a password change in one app ends the account's sessions in
// the other too.
import { afterEach, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import type { Database } from '../../src/db/database.ts';
import { openTestCentral, testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { addAccount, FakeBrowser, TestClock } from './helpers.ts';

const PASSWORD = 'a long password';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function broker(
  appId: string,
  options: { appDir?: string; central?: Database; clock?: TestClock } = {},
): Promise<{ broker: Broker; lines: string[]; appDir: string }> {
  let appDir = options.appDir;
  if (appDir === undefined) {
    const dir = await tempDir('central-');
    cleanups.push(dir.remove);
    appDir = dir.path;
  }
  const lines: string[] = [];
  const started = await startBroker({
    appDir,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    logWriter: (line) => lines.push(line),
    auth: {
      appId,
      passwordCost: 10,
      clock: options.clock ?? new TestClock(),
      visibility: 'public',
    },
    ...(options.central ? { central: options.central } : {}),
  });
  return { broker: started, lines, appDir };
}

async function central(): Promise<Database> {
  const db = await openTestCentral();
  cleanups.push(() => db.close());
  return db;
}

const accountRows = async (db: Database) =>
  (
    await db.query<{ email: string; password_verifier: string | null }>(
      'SELECT email, password_verifier FROM platform.accounts ORDER BY email',
    )
  ).rows;

describe('the central store', { timeout: 120_000 }, () => {
  it("takes over a single app's accounts on its first start, verifier and all", async () => {
    const first = await broker('notes');
    await addAccount(first.broker, 'pat@example.com', PASSWORD);
    const before = await accountRows(first.broker.db);
    expect(before.map((row) => row.email)).toEqual(['owner@localhost', 'pat@example.com']);
    await first.broker.close();

    const store = await central();
    const again = await broker('notes', { appDir: first.appDir, central: store });
    cleanups.push(() => again.broker.close());
    expect(again.lines).toContain(
      "Moved 2 account(s) of this app into the organisation's central store.",
    );
    expect(await accountRows(store)).toEqual(before);
    expect(await accountRows(again.broker.db)).toEqual([]);
    // The moved password still signs in.
    const browser = new FakeBrowser(again.broker);
    expect((await browser.signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    expect((await browser.session()).body.user).toMatchObject({ email: 'pat@example.com' });
  });

  it('serves one account to two apps, and ends its sessions in both on a password change', async () => {
    const store = await central();
    const clock = new TestClock();
    const a = await broker('alpha', { central: store, clock });
    cleanups.push(() => a.broker.close());
    const b = await broker('beta', { central: store, clock });
    cleanups.push(() => b.broker.close());
    await addAccount(a.broker, 'pat@example.com', PASSWORD);
    const inA = new FakeBrowser(a.broker);
    const inB = new FakeBrowser(b.broker);
    expect((await inA.signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    expect((await inB.signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    const userA = (await inA.session()).body.user as { id: string };
    const userB = (await inB.session()).body.user as { id: string };
    expect(userB.id).toBe(userA.id);
    // B's cookie means nothing to A.
    const stray = new FakeBrowser(a.broker);
    stray.jar.set('platform_session', inB.jar.get('platform_session')!);
    expect((await stray.session()).status).toBe(401);

    clock.advance(1000);
    const sessionA = (await a.broker.auth.account('pat@example.com'))!;
    const keep = inA.cookie('platform_session')!.split('.')[0];
    await a.broker.auth.setPassword(sessionA.id, 'another long password', keep);
    expect((await inA.session()).status).toBe(200);
    expect((await inB.session()).status).toBe(401);
    // The new password works in B; no app database holds a verifier.
    const again = new FakeBrowser(b.broker);
    expect((await again.signInByPassword('pat@example.com', 'another long password')).status).toBe(
      303,
    );
    for (const app of [a, b]) expect(await accountRows(app.broker.db)).toEqual([]);
  });

  it("keeps each app's private-app grants in the central store, moving older ones there", async () => {
    const first = await broker('notes');
    await first.broker.auth.grantAccess('pat@example.com');
    await first.broker.close();

    const store = await central();
    const notes = await broker('notes', { appDir: first.appDir, central: store });
    cleanups.push(() => notes.broker.close());
    expect(notes.lines).toContain(
      "Moved 1 access grant(s) of this app into the organisation's central store.",
    );
    const other = await broker('board', { central: store });
    cleanups.push(() => other.broker.close());
    await other.broker.auth.grantAccess('sam@example.com');

    const grants = async (db: Database) =>
      (
        await db.query<{ app_id: string; email: string }>(
          'SELECT app_id, email FROM platform.app_grants ORDER BY app_id',
        )
      ).rows;
    expect(await grants(store)).toEqual([
      { app_id: 'board', email: 'sam@example.com' },
      { app_id: 'notes', email: 'pat@example.com' },
    ]);
    for (const app of [notes, other]) expect(await grants(app.broker.db)).toEqual([]);
    // Per app: each app lists and honours its own.
    expect((await notes.broker.auth.listGrants()).map((g) => g.email)).toEqual(['pat@example.com']);
    expect((await other.broker.auth.listGrants()).map((g) => g.email)).toEqual(['sam@example.com']);
  });
});
