// Account deletion (spec 3.5) from the account page: the checks that refuse it, what ends at
// once, and what is left afterwards, for a member of an organisation and for its only member.
import { errorFromResponse } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker } from '../../src/app/start-broker.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { authBroker, FakeBrowser, MINUTE, TestClock } from '../auth/helpers.ts';
import { openTestCentral, testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const account = '/_platform/auth/account';
const OWNER = 'owner@localhost';
const BOB = 'bob@example.com';

type Env = Awaited<ReturnType<typeof authBroker>>;

/** Posts the deletion form from the account page of `browser`. */
async function deleteAccount(browser: FakeBrowser, typed: string) {
  const page = await (await browser.navigate(account)).text();
  const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? (await browser.csrf());
  const response = await browser.request(`${account}/delete`, { form: { csrf, email: typed } });
  const html = await response.text();
  return { status: response.status, html, code: /data-code="([^"]+)"/.exec(html)?.[1] };
}

/**
 * Every row of every table but the outbox (which holds the confirmation email, the message the
 * person is sent), as text: what a deleted address must not be in.
 */
async function everything(env: Env): Promise<string> {
  const { rows } = await env.broker.db.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
     WHERE schemaname IN ('platform', 'public') AND tablename <> 'outbox'`,
  );
  const dumps: string[] = [];
  for (const { name } of rows) {
    dumps.push(JSON.stringify((await env.broker.db.query(`SELECT * FROM ${name}`)).rows));
  }
  return dumps.join('\n');
}

const finished = async (env: Env, accountId: string) =>
  expect
    .poll(
      async () =>
        (
          await env.broker.db.query(
            'SELECT 1 FROM platform.account_deletions WHERE account_id = $1 AND finished_at IS NOT NULL',
            [accountId],
          )
        ).rowCount,
      { timeout: 10_000 },
    )
    .toBe(1);

describe('deleting a member of an organisation', () => {
  let env: Env;
  let bob: FakeBrowser;
  let bobElsewhere: FakeBrowser;
  let bobId = '';

  beforeAll(async () => {
    env = await authBroker();
    // Bob is a member: the owner, who founded the organisation, invited him before he signed up.
    await new Memberships(env.broker.db).invite((await env.broker.auth.owner()).id, BOB);
    await env.broker.auth.grantAccess(BOB);
    bob = new FakeBrowser(env.broker);
    await bob.signInByEmail(BOB);
    bobElsewhere = new FakeBrowser(env.broker);
    await bobElsewhere.signInByEmail(BOB);
    bobId = (await env.broker.auth.account(BOB))?.id as string;
  }, 60_000);
  afterAll(() => env?.cleanup());

  it('sends a browser without a session to sign in and back', async () => {
    const response = await new FakeBrowser(env.broker).navigate(account);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toContain(encodeURIComponent(account));
  });

  it('refuses a mistyped address and a sign-in older than 10 minutes, changing nothing', async () => {
    const typo = await deleteAccount(bob, 'bob@example.org');
    expect(typo).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    env.clock.advance(11 * MINUTE);
    expect(await (await bob.navigate(account)).text()).toContain('id="sign-in-again"');
    const stale = await deleteAccount(bob, BOB);
    expect(stale).toMatchObject({ status: 403, code: 'RECENT_SIGN_IN_REQUIRED' });
    expect((await bob.session()).status).toBe(200);
    const { rowCount } = await env.broker.db.query('SELECT 1 FROM platform.account_deletions');
    expect(rowCount).toBe(0);
  });

  it('refuses the only administrator, and the owner of apps other members use', async () => {
    const owner = new FakeBrowser(env.broker);
    await owner.signInByEmail(OWNER);
    const last = await deleteAccount(owner, OWNER);
    expect(last).toMatchObject({
      status: 409,
      code: 'LAST_ADMINISTRATOR',
    });
    // The same words as when the administrator steps down or leaves the organisation.
    expect(last.html).toContain(`${OWNER} is the organisation`);
    expect(last.html).toContain('make another member administrator first (platform org role');
    await env.broker.db.query(
      "UPDATE platform.memberships SET role = 'administrator' WHERE account_id = $1",
      [bobId],
    );
    const owns = await deleteAccount(owner, OWNER);
    expect(owns).toMatchObject({ status: 409, code: 'ACCOUNT_OWNS_APPS' });
    expect(owns.html).toContain('notes');
    await env.broker.db.query(
      "UPDATE platform.memberships SET role = 'member' WHERE account_id = $1",
      [bobId],
    );
    expect((await owner.session()).status).toBe(200);
  });

  it('ends every session at once, then leaves no trace but the email-less audit', async () => {
    await bob.signInByEmail(BOB); // a fresh sign-in
    const done = await deleteAccount(bob, BOB);
    expect(done.status).toBe(200);
    expect(done.html).toContain('id="deleted"');
    // Sessions end everywhere at once, this browser's cookie is cleared.
    expect((await bobElsewhere.session()).status).not.toBe(200);
    expect(bob.cookie('platform_session')).toBeUndefined();
    await finished(env, bobId);
    expect(await everything(env)).not.toContain(BOB);
    // The audit record stays, without the address; the confirmation went to the old address.
    const { rows } = await env.broker.db.query(
      'SELECT account_id, notify_email, whole_organisation FROM platform.account_deletions',
    );
    expect(rows).toEqual([{ account_id: bobId, notify_email: null, whole_organisation: false }]);
    const sent = await env.broker.outbox.list();
    expect(sent.map((m) => [m.to, m.subject])).toContainEqual([[BOB], 'Your account was deleted']);
    expect(sent.filter((m) => m.to.includes(BOB))).toHaveLength(1);
    // The organisation's app stays for everybody else.
    const owner = new FakeBrowser(env.broker);
    await owner.signInByEmail(OWNER);
    expect((await owner.session()).status).toBe(200);
  });
});

describe('deleting the only member of an organisation', () => {
  let env: Env;

  beforeAll(async () => {
    env = await authBroker({
      files: {
        'migrations/001_notes.sql':
          "create table notes (id serial primary key, body text); insert into notes (body) values ('kept?');",
      },
    });
  }, 60_000);
  afterAll(() => env?.cleanup());

  it('takes the apps offline at once and deletes their data', async () => {
    const { token } = await env.broker.auth.appTokens.issue('ci');
    const owner = new FakeBrowser(env.broker);
    await owner.signInByEmail(OWNER);
    const ownerId = (await env.broker.auth.owner()).id;
    const agent = await env.broker.auth.agentCredentials.issue(ownerId, 'notes', 'claude');
    const done = await deleteAccount(owner, OWNER);
    expect(done.status).toBe(200);
    // Offline at once: pages, APIs and the app access token.
    const page = await new FakeBrowser(env.broker).navigate('/');
    expect(page.status).toBe(410);
    const api = await env.broker.app.request('/rest/v1/notes', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(api.status).toBe(410);
    expect((await errorFromResponse(api)).code).toBe('APP_DELETED');
    expect(await env.broker.auth.appPaused()).toBe(true);
    // Its agents stop at once too.
    expect(await env.broker.auth.agentCredentials.verify(agent.token)).toBeUndefined();
    await finished(env, ownerId);
    const { rows } = await env.broker.db.query<{ found: string | null }>(
      "SELECT to_regclass('public.notes')::text AS found",
    );
    expect(rows[0]?.found).toBeNull();
    expect(await everything(env)).not.toContain(OWNER);
    const sent = await env.broker.outbox.list();
    expect(sent.map((m) => [m.to, m.subject])).toEqual([[[OWNER], 'Your account was deleted']]);
  });

  it('refuses a second deletion of the same account', async () => {
    const other = await authBroker();
    try {
      const account = await other.broker.auth.owner();
      const request = {
        account,
        signedInAt: other.clock.now(),
        typedEmail: account.email,
        ownsThisApp: true,
      };
      const results = await Promise.allSettled([
        other.broker.deletions.request(request),
        other.broker.deletions.request(request),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ code: 'ACCOUNT_DELETION_IN_PROGRESS' });
    } finally {
      await other.cleanup();
    }
  });
});

describe('deleting a member of an organisation of two apps', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('ends the sessions of both apps at once, and each app removes the person', async () => {
    const central = await openTestCentral();
    cleanups.push(() => central.close());
    const clock = new TestClock();
    const peers: { appId: string; url: string }[] = [];
    const start = async (appId: string) => {
      const dir = await tempDir('deletion-org-');
      cleanups.push(dir.remove);
      const broker = await startBroker({
        appDir: dir.path,
        sdkVersion: '2.6.0',
        databaseUrl: '',
        snapshotPath: testSnapshotPath,
        logWriter: () => {},
        central,
        auth: { appId, passwordCost: 10, clock, visibility: 'public', peers: () => peers },
      });
      cleanups.push(() => broker.close());
      peers.push({ appId, url: broker.server.url });
      return broker;
    };
    const [a, b] = [await start('a'), await start('b')];
    const inA = new FakeBrowser(a);
    const inB = new FakeBrowser(b);
    await inA.signInByEmail(BOB);
    await inB.signInByEmail(BOB);
    const bobId = (await a.auth.account(BOB))?.id as string;
    expect(await deleteAccount(inA, BOB)).toMatchObject({ status: 200 });
    expect((await inB.session()).status).not.toBe(200);
    await expect
      .poll(async () => {
        const { rows } = await central.query<{ finished: boolean }>(
          'SELECT finished_at IS NOT NULL AS finished FROM platform.account_deletions WHERE account_id = $1',
          [bobId],
        );
        return rows[0]?.finished;
      })
      .toBe(true);
    for (const broker of [a, b]) {
      const { rowCount } = await broker.db.query(
        'SELECT 1 FROM platform.sessions WHERE account_id = $1',
        [bobId],
      );
      expect(rowCount, broker.appId).toBe(0);
    }
    expect(
      (await central.query('SELECT 1 FROM platform.accounts WHERE id = $1', [bobId])).rowCount,
    ).toBe(0);
    // The confirmation comes from the app where the deletion was asked; the other app is still up.
    expect((await a.outbox.list()).map((m) => m.subject)).toContain('Your account was deleted');
    expect((await b.outbox.list()).map((m) => m.subject)).not.toContain('Your account was deleted');
    expect((await new FakeBrowser(b).navigate('/')).status).not.toBe(410);
  });
});
