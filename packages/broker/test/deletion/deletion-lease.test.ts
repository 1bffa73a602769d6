// Two brokers of one app on one PostgreSQL, as `platform serve` nodes of the app: when the
// organisation's only member deletes their account, both run the deletion's app part at once,
// and the app is wiped once and the confirmation email sent once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { TestClock } from '../auth/helpers.ts';
import { writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let pg: PostgresServer | undefined;
const nodes: Broker[] = [];
const cleanups: (() => Promise<void>)[] = [];
const clock = new TestClock();

async function node(url: string): Promise<Broker> {
  const dir = await tempDir('broker-deletion-lease-');
  cleanups.push(dir.remove);
  await writeFiles(dir.path, {
    'migrations/001_notes.sql': 'create table notes (id serial primary key, body text);',
  });
  const broker = await startBroker({
    appDir: dir.path,
    sdkVersion: '2.6.0',
    databaseUrl: url,
    snapshotPath: testSnapshotPath,
    logWriter: () => undefined,
    auth: { appId: 'notes', passwordCost: 10, clock, visibility: 'public' },
  });
  cleanups.push(() => broker.close());
  return broker;
}

beforeAll(async () => {
  pg = await startPostgres();
  const url = await pg.createDatabase('deletion_lease');
  nodes.push(await node(url));
  nodes.push(await node(url));
  // Counts the wipes: each truncates the platform's tables in one statement. The log is in a
  // schema of its own, which no wipe touches.
  await (nodes[0] as Broker).db.exec(`
CREATE SCHEMA wipe_log;
CREATE TABLE wipe_log.wipes (at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE FUNCTION wipe_log.count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO wipe_log.wipes DEFAULT VALUES; RETURN NULL; END $$;
CREATE TRIGGER count_wipes BEFORE TRUNCATE ON platform.sessions
  FOR EACH STATEMENT EXECUTE FUNCTION wipe_log.count();
`);
}, 120_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await pg?.stop();
}, 60_000);

describe('an account deletion on two brokers of one PostgreSQL', { timeout: 60_000 }, () => {
  it('wipes the app once and sends one confirmation email when both resume at once', async () => {
    const [a, b] = nodes as [Broker, Broker];
    const account = await a.auth.owner();
    const request = a.deletions.request({
      account,
      signedInAt: clock.now(),
      typedEmail: account.email,
      ownsThisApp: true,
    });
    // A resumes as its request returns; B at the same moment, as its loop would.
    const { id, wholeOrganisation } = await request;
    expect(wholeOrganisation).toBe(true);
    await Promise.all([a.deletions.resume(), b.deletions.resume()]);
    await expect
      .poll(
        async () =>
          (
            await a.db.query(
              'SELECT 1 FROM platform.account_deletions WHERE id = $1 AND finished_at IS NOT NULL',
              [id],
            )
          ).rowCount,
        { timeout: 20_000 },
      )
      .toBe(1);
    // Both loops run every second: give each a few more turns to do anything twice.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const { rows } = await a.db.query<{ wipes: string }>(
      'SELECT count(*)::text AS wipes FROM wipe_log.wipes',
    );
    const sent = (await a.outbox.list()).filter((m) => m.subject === 'Your account was deleted');
    expect({ wipes: Number(rows[0]?.wipes), emails: sent.length }).toEqual({ wipes: 1, emails: 1 });
    const { rows: leases } = await a.db.query(
      'SELECT 1 FROM platform.account_deletion_apps WHERE lease_until IS NOT NULL',
    );
    expect(leases).toEqual([]);
  });

  it('sends the email once when both find only the email left (a node stopped before it)', async () => {
    const [a, b] = nodes as [Broker, Broker];
    const to = 'left@example.com';
    // What a broker stopped after the wipe and the central part leaves: the email to send.
    await a.db.query(
      `INSERT INTO platform.account_deletions (id, account_id, notify_email, notify_app_id,
         whole_organisation, requested_at, central_done_at)
       VALUES ('del_left', gen_random_uuid(), $1, 'notes', false, now(), now())`,
      [to],
    );
    await a.db.query(
      `INSERT INTO platform.account_deletion_apps (deletion_id, app_id, done_at)
       VALUES ('del_left', 'notes', now())`,
    );
    await Promise.all([a.deletions.resume(), b.deletions.resume()]);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const sent = (await a.outbox.list()).filter((m) => m.to.includes(to));
    expect(sent.length).toBe(1);
  });
});
