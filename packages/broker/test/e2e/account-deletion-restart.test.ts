// A deletion of an organisation's only member, with `platform dev` SIGKILLed half-way (the app
// wiped, the deletion not yet recorded, the account record and the email still to come): the
// next start finishes it before serving the app anew.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCentralStore } from '../../src/app/open-central.ts';
import type { Database } from '../../src/db/database.ts';
import { PgliteDatabase } from '../../src/db/pglite-database.ts';
import { readDevState } from '../../src/project/dev-state.ts';
import { FakeBrowser, field } from '../auth/helpers.ts';
import { writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { fixtureApp } from './fixture-app.ts';
import { exitOf, spawnPlatform, waitForUrl } from './helpers.ts';

const OWNER = 'owner@localhost';
let app: { path: string; remove: () => Promise<void> };
const children: ChildProcess[] = [];

/** `platform dev` on the app: its URL, and every line it prints from now on. */
async function startDevProcess() {
  const child = spawnPlatform(['dev', app.path, '--port', '0']);
  children.push(child);
  const lines: string[] = [];
  const url = await waitForUrl(child, lines);
  const printed = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find((line) => pattern.test(line));
      if (found) return resolve(found);
      const timer = setTimeout(
        () => reject(new Error(`not printed: ${pattern}\n${lines.join('\n')}`)),
        30_000,
      );
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (pattern.test(line)) {
          clearTimeout(timer);
          resolve(line);
        }
      });
    });
  return { child, url, lines, printed };
}

/** The owner signed in by email link, the link read from the terminal. */
async function signIn(dev: Awaited<ReturnType<typeof startDevProcess>>): Promise<FakeBrowser> {
  const browser = FakeBrowser.at(dev.url);
  const csrf = await browser.csrf();
  await browser.request('/_platform/auth/email-link', {
    form: { email: OWNER, returnTo: '/', csrf },
  });
  const line = await dev.printed(/confirm\?token=/);
  const token = /token=([\w-]+)/.exec(line)?.[1] as string;
  await browser.confirmLink(token);
  await browser.request('/_platform/auth/claim', {
    method: 'POST',
    headers: { accept: 'application/json' },
  });
  return browser;
}

/** The central store and the app's database, opened while no `platform dev` runs. */
async function openStores(): Promise<{
  central: Database;
  db: Database;
  close: () => Promise<void>;
}> {
  const central = await openCentralStore({
    dir: app.path,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
  });
  // Opened as it is on disk: no migration applied.
  const db = await PgliteDatabase.open({
    dataDir: join(app.path, '.platform', 'db'),
    snapshotPath: testSnapshotPath,
  });
  return {
    central,
    db,
    close: async () => void (await Promise.all([central.close(), db.close()])),
  };
}

beforeAll(async () => {
  app = await tempDir('deletion-restart-');
  await writeFiles(app.path, fixtureApp);
  // A first start makes the stores; then a hold on recording an app's part of a deletion done
  // (its lease is still taken), as a broker killed between wiping the app and recording it
  // would leave things.
  const first = await startDevProcess();
  first.child.kill('SIGTERM');
  await exitOf(first.child);
  const { central, close } = await openStores();
  await central.exec(`
CREATE SCHEMA test_hold;
CREATE FUNCTION test_hold.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'held by the test'; END $$;
CREATE TRIGGER hold BEFORE UPDATE ON platform.account_deletion_apps
  FOR EACH ROW WHEN (NEW.done_at IS NOT NULL) EXECUTE FUNCTION test_hold.refuse();`);
  await close();
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await app?.remove();
});

describe('a deletion killed half-way', { timeout: 120_000 }, () => {
  it('completes after a restart and leaves no trace but the email-less audit', async () => {
    const dev = await startDevProcess();
    const owner = await signIn(dev);
    const page = await (await owner.navigate('/_platform/auth/account')).text();
    const deleted = await owner.request('/_platform/auth/account/delete', {
      form: { csrf: field(page, 'csrf'), email: OWNER },
    });
    expect(deleted.status).toBe(200);
    expect((await fetch(`${dev.url}/echo/hi`)).status).toBe(410);
    await dev.printed(/WARN {2}account deletion: .*held by the test/);
    dev.child.kill('SIGKILL');
    await exitOf(dev.child);

    const half = await openStores();
    const {
      rows: [deletion],
    } = await half.central.query<{
      account_id: string;
      finished_at: Date | null;
      notify_email: string | null;
    }>('SELECT account_id, finished_at, notify_email FROM platform.account_deletions');
    expect(deletion).toMatchObject({ finished_at: null, notify_email: OWNER });
    const accountId = deletion?.account_id as string;
    expect(
      (await half.central.query('SELECT 1 FROM platform.accounts WHERE id = $1', [accountId]))
        .rowCount,
    ).toBe(1);
    expect((await half.db.query("SELECT to_regclass('public.notes')::text AS t")).rows[0]).toEqual({
      t: null,
    });
    await half.central.exec('DROP SCHEMA test_hold CASCADE');
    await half.close();

    const next = await startDevProcess();
    expect(next.lines.join('\n')).toContain('begins anew from its folder');
    await next.printed(new RegExp(`Account ${accountId} was deleted`));
    expect((await fetch(`${next.url}/echo/hi`)).status).toBe(200);
    const state = await readDevState(app.path);
    const outbox = await fetch(`${next.url}/v1/apps/${state?.appId}/outbox`, {
      headers: { authorization: `Bearer ${state?.token}` },
    });
    const { emails } = (await outbox.json()) as {
      emails: Array<{ to: string[]; subject: string }>;
    };
    expect(emails.map((m) => [m.to, m.subject])).toEqual([[[OWNER], 'Your account was deleted']]);
    next.child.kill('SIGTERM');
    await exitOf(next.child);

    const after = await openStores();
    const { rows: audit } = await after.central.query(
      'SELECT account_id, notify_email FROM platform.account_deletions WHERE finished_at IS NOT NULL',
    );
    expect(audit).toEqual([{ account_id: accountId, notify_email: null }]);
    const { rows: accounts } = await after.central.query<{ id: string; email: string }>(
      'SELECT id, email FROM platform.accounts',
    );
    // The app began anew with a new owner account; the deleted one is gone, tombstone and all.
    expect(accounts.map((a) => a.id)).not.toContain(accountId);
    expect(accounts.map((a) => a.email)).toEqual([OWNER]);
    expect(
      (await after.db.query('SELECT 1 FROM platform.sessions WHERE account_id = $1', [accountId]))
        .rowCount,
    ).toBe(0);
    await after.close();
  });
});
