import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import { AppGrants } from '../../src/auth/app-grants.ts';
import { AppTokens } from '../../src/auth/app-tokens.ts';
import { loadAuthKeys } from '../../src/auth/auth-keys.ts';
import { Sessions } from '../../src/auth/sessions.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { PgliteDatabase } from '../../src/db/pglite-database.ts';
import { summarizeCron } from '../../src/jobs/cron/cron-summary.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { appWithDatabase } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// An app folder whose .platform/db was made before the platform schema had versions: see
// fixtures/unversioned-db/make-fixture.ts for how and by which code.
const fixture = fileURLToPath(new URL('../fixtures/unversioned-db/', import.meta.url));
interface Expected {
  appId: string;
  ownerId: string;
  fileId: string;
  jobId: string;
  cronRunId: string;
  emailId: string;
  guestId: string;
  sessionCookie: string;
  appToken: string;
}
const queues = [
  {
    name: 'mail',
    function: 'sendMail',
    concurrency: 2,
    maxAttempts: 3,
    retryDelaySeconds: 5,
    retryBackoff: false,
    timeoutSeconds: 30,
  },
];
const cron = [
  { name: 'nightly', function: 'cleanup', schedule: '0 3 * * *', timezone: 'UTC', enabled: true },
];

/** Every row of every table in schema `platform`, in a stable order. */
async function platformRows(db: Database): Promise<Record<string, unknown[]>> {
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'platform' AND table_name <> 'schema_versions' ORDER BY 1`,
  );
  const all: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const { rows } = await db.query(
      `SELECT to_jsonb(t) AS row FROM platform.${name} t ORDER BY to_jsonb(t)::text`,
    );
    all[name] = rows.map((r) => r.row);
  }
  return all;
}

/** What the platform schema consists of: tables, columns, constraints, indexes, functions, grants. */
async function describeSchema(db: Database): Promise<Record<string, unknown[]>> {
  const read = async (sql: string) => (await db.query(sql)).rows;
  return {
    columns: await read(
      `SELECT table_name, column_name, data_type, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = 'platform' ORDER BY 1, 2`,
    ),
    constraints: await read(
      `SELECT conrelid::regclass::text AS on, conname, pg_get_constraintdef(oid) AS def
       FROM pg_constraint WHERE connamespace = 'platform'::regnamespace ORDER BY 1, 2`,
    ),
    indexes: await read(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'platform' ORDER BY 1`,
    ),
    functions: await read(
      `SELECT proname, pg_get_functiondef(oid) AS def, proacl::text AS acl
       FROM pg_proc WHERE pronamespace = 'auth'::regnamespace ORDER BY 1`,
    ),
    roles: await read(
      `SELECT rolname, rolcanlogin, rolinherit FROM pg_roles
       WHERE rolname IN ('anon', 'authenticated', 'platform_system') ORDER BY 1`,
    ),
    schemas: await read(
      `SELECT nspname, nspacl::text AS acl FROM pg_namespace
       WHERE nspname IN ('auth', 'platform', 'public') ORDER BY 1`,
    ),
    defaultPrivileges: await read(
      `SELECT defaclobjtype, defaclacl::text AS acl FROM pg_default_acl ORDER BY 1`,
    ),
  };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let appDir: string;
let snapshot: string;
let expected: Expected;
let before: { versionTable: boolean; rows: Record<string, unknown[]> };
let broker: Broker | undefined;

beforeAll(async () => {
  dir = await tempDir('broker-upgrade-');
  appDir = join(dir.path, 'app');
  expected = JSON.parse(await readFile(join(fixture, 'expected.json'), 'utf8')) as Expected;
  // The fixture's data directory, handed to PGlite the way a fresh-cluster snapshot is.
  snapshot = join(dir.path, 'unversioned.tar');
  await writeFile(snapshot, brotliDecompressSync(await readFile(join(fixture, 'db.tar.br'))));
  await cp(join(fixture, 'migrations'), join(appDir, 'migrations'), { recursive: true });
  await cp(join(fixture, 'files'), join(appDir, '.platform', 'files'), { recursive: true });
  const old = await PgliteDatabase.open({
    dataDir: join(appDir, '.platform', 'db'),
    snapshotPath: snapshot,
  });
  try {
    const { rows } = await old.query<{ found: string | null }>(
      `SELECT to_regclass('platform.schema_versions')::text AS found`,
    );
    before = { versionTable: rows[0]?.found !== null, rows: await platformRows(old) };
  } finally {
    await old.close();
  }
  broker = await startBroker({
    appDir,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    snapshotPath: snapshot,
    logWriter: () => undefined,
    auth: { appId: expected.appId, ownerEmail: 'owner@example.com' },
    jobs: { run: false, queues, cron },
  });
}, 120_000);
afterAll(async () => {
  await broker?.close();
  await dir?.remove();
});

describe('a data directory made before the platform schema had versions', () => {
  it('had its tables and rows but no version table', () => {
    expect(before.versionTable).toBe(false);
    expect(Object.fromEntries(Object.entries(before.rows).map(([t, r]) => [t, r.length]))).toEqual({
      accounts: 2,
      app_grants: 1,
      app_tokens: 1,
      auth_keys: 2,
      cron_state: 1,
      email_links: 1,
      file_generations: 2,
      files: 1,
      jobs: 2,
      migrations: 1,
      outbox: 1,
      sessions: 1,
    });
  });

  it('is adopted at the latest version with every row kept', async () => {
    const db = (broker as Broker).db;
    const { rows } = await db.query<{ version: number; name: string }>(
      'SELECT version, name FROM platform.schema_versions ORDER BY version',
    );
    expect(rows).toEqual(platformSchema.map(({ version, name }) => ({ version, name })));
    // What later steps add: accounts' session floor (empty), and the rows stored under the
    // app id `local` now under the app's real id.
    const moved = (row: unknown) => {
      const record = row as { app_id?: string };
      return record.app_id === 'local' ? { ...record, app_id: expected.appId } : record;
    };
    // The organisation's members: every account, the oldest its administrator.
    const accounts = (before.rows.accounts ?? []) as { id: string; created_at: string }[];
    const oldest = [...accounts].sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
    const memberships = accounts
      .map((a) => ({
        account_id: a.id,
        role: a.id === oldest?.id ? 'administrator' : 'member',
        joined_at: a.created_at,
      }))
      .sort((a, b) => a.account_id.localeCompare(b.account_id));
    const after = await platformRows(db);
    // Tables of steps newer than the data directory start empty (the memberships aside: every
    // account becomes a member); the old ones keep every row.
    const added = Object.keys(after).filter((t) => !(t in before.rows) && t !== 'memberships');
    expect(added).toContain('inbound_mail');
    expect(added).toContain('push_subscriptions');
    for (const table of added) {
      expect(after[table], table).toEqual([]);
      delete after[table];
    }
    expect(
      [...((after.memberships ?? []) as { account_id: string }[])].sort((a, b) =>
        a.account_id.localeCompare(b.account_id),
      ),
    ).toEqual(memberships);
    delete after.memberships;
    expect(after).toEqual({
      ...before.rows,
      accounts: before.rows.accounts?.map((row) => ({
        ...(row as object),
        kept_session: null,
        sessions_valid_after: null,
      })),
      // App access tokens made before reveal links were revealed at creation.
      app_tokens: before.rows.app_tokens?.map((row) => ({
        ...(row as object),
        reveal_hash: null,
        reveal_expires_at: null,
      })),
      // Sessions from before sign-in times were recorded count from their creation.
      sessions: before.rows.sessions?.map((row) => ({ ...(row as object), signed_in_at: null })),
      // Grants made before their delegator was recorded end only by expiry.
      jobs: before.rows.jobs?.map((row) => ({ ...(moved(row) as object), grant_user_id: null })),
      cron_state: before.rows.cron_state?.map(moved),
    });
    expect((broker as Broker).migrations.applied).toEqual([]);
  });

  it('has the same schema as a database the current code creates', async () => {
    const fresh = await appWithDatabase({}, { inMemory: true });
    try {
      expect(await describeSchema((broker as Broker).db)).toEqual(await describeSchema(fresh.db));
    } finally {
      await fresh.cleanup();
    }
  });

  it('serves its rows through the services', async () => {
    const { db, files, outbox, jobs } = broker as Broker;
    const owner = userCaller(expected.ownerId);
    const { file, data: bytes } = await files.download(owner, expected.fileId);
    expect(file).toMatchObject({ name: 'hello.txt', generation: 2 });
    expect(new TextDecoder().decode(bytes)).toBe('second generation');
    expect(await jobs.service.get(expected.jobId)).toMatchObject({
      queue: 'mail',
      state: 'queued',
    });
    const [nightly] = await summarizeCron(db, jobs.service.scope, cron, () => null);
    expect(nightly?.lastRun).toMatchObject({ id: expected.cronRunId, manual: true });
    expect(await outbox.list()).toMatchObject([
      { id: expected.emailId, subject: 'Welcome', to: ['friend@example.com'] },
    ]);
    expect(await new Accounts(db, db, systemClock).byId(expected.guestId)).toMatchObject({
      email: 'guest@example.com',
      state: 'confirmed',
    });
    const { csrf: tokenKey } = await loadAuthKeys(db);
    const session = await new Sessions(db, systemClock, expected.appId, tokenKey).check(
      expected.sessionCookie,
      { rotate: false },
    );
    expect(session).toMatchObject({ ok: true, session: { accountId: expected.guestId } });
    expect(await new AppTokens(db, systemClock, expected.appId).verify(expected.appToken)).toBe(
      true,
    );
    expect(await new AppGrants(db, systemClock, expected.appId).has('guest@example.com')).toBe(
      true,
    );
    // The app's own table (row-level security without policies: read as the database owner).
    expect((await db.query('SELECT body FROM notes')).rows).toEqual([
      { body: 'kept across the upgrade' },
    ]);
  });

  it('applies nothing on the next start', async () => {
    await (broker as Broker).close();
    broker = undefined;
    const again = await openDatabase({
      appDir,
      databaseUrl: '',
      snapshotPath: snapshot,
      platformSchema,
    });
    try {
      expect(again.platformSchema).toEqual({
        from: platformSchema.at(-1)?.version,
        to: platformSchema.at(-1)?.version,
        applied: [],
      });
      expect(again.migrations.applied).toEqual([]);
    } finally {
      await again.db.close();
    }
  });
});
