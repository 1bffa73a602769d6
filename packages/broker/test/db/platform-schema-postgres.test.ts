import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import type { Database } from '../../src/db/database.ts';
import {
  applyPlatformSchema,
  PLATFORM_SCHEMA_LOCK,
  PlatformSchemaError,
  type SchemaStep,
} from '../../src/db/platform-schema.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { openPostgres } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const latest = platformSchema.at(-1)?.version ?? 0;
const count = platformSchema.length;
let server: PostgresServer;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await server?.stop();
}, 60_000);

async function connect(url: string): Promise<Database> {
  const db = await PostgresDatabase.connect(url);
  cleanups.push(() => db.close());
  return db;
}

const versionCount = async (db: Database) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.schema_versions')).rows[0]
    ?.n;

describe('the platform schema on one PostgreSQL shared by several brokers', () => {
  it('is applied once when four brokers open a new database at the same moment', async () => {
    const url = await server.createDatabase('four_at_once');
    const dirs = await Promise.all([1, 2, 3, 4].map(() => tempDir('broker-schema-')));
    for (const dir of dirs) cleanups.push(dir.remove);
    const opened = await Promise.all(dirs.map((dir) => openPostgres(url, dir.path)));
    for (const { db } of opened) cleanups.push(() => db.close());

    // The lock serialises them: the first applies every step, the others find them done.
    const applied = opened.map(({ platformSchema: report }) => report.applied.length).sort();
    expect(applied).toEqual([0, 0, 0, count]);
    expect(opened.every(({ platformSchema: report }) => report.to === latest)).toBe(true);
    expect(await versionCount(opened[0]!.db)).toBe(count);
  });

  it('runs a slow step that cannot run twice exactly once among concurrent brokers', async () => {
    const url = await server.createDatabase('slow_step');
    // Without the lock, the second broker would fail on the existing table or version row.
    const slow: SchemaStep = {
      version: latest + 1,
      name: 'slow',
      sql: 'SELECT pg_sleep(0.3); CREATE TABLE platform.once (id int PRIMARY KEY);',
    };
    const dbs = await Promise.all([1, 2, 3].map(() => connect(url)));
    const reports = await Promise.all(
      dbs.map((db) => applyPlatformSchema(db, [...platformSchema, slow])),
    );
    const ranSlow = reports.filter((r) => r.applied.some((step) => step.name === 'slow'));
    expect(ranSlow).toHaveLength(1);
    expect(await versionCount(dbs[0]!)).toBe(count + 1);
  });

  it('releases the lock when a step fails', async () => {
    const url = await server.createDatabase('failing_step');
    const [a, b] = await Promise.all([connect(url), connect(url)]);
    const broken: SchemaStep = { version: latest + 1, name: 'broken', sql: 'SELECT 1 / 0' };
    await expect(applyPlatformSchema(a, [...platformSchema, broken])).rejects.toBeInstanceOf(
      PlatformSchemaError,
    );
    expect(await versionCount(a)).toBe(count);
    const { rows } = await b.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
      [PLATFORM_SCHEMA_LOCK],
    );
    expect(rows[0]?.locked).toBe(true);
    await b.query('SELECT pg_advisory_unlock(hashtext($1))', [PLATFORM_SCHEMA_LOCK]);
    // The other broker now applies nothing more and the database still opens.
    expect((await applyPlatformSchema(b, platformSchema)).applied).toEqual([]);
  });

  it('lets two brokers start at once on a new database', async () => {
    const url = await server.createDatabase('two_brokers');
    const dirs = await Promise.all([tempDir('broker-a-'), tempDir('broker-b-')]);
    for (const dir of dirs) cleanups.push(dir.remove);
    const brokers: Broker[] = await Promise.all(
      dirs.map((dir) =>
        startBroker({
          appDir: dir.path,
          sdkVersion: '2.6.0',
          databaseUrl: url,
          logWriter: () => undefined,
          auth: { appId: 'shared', ownerEmail: 'owner@example.com' },
          jobs: { run: false },
        }),
      ),
    );
    for (const broker of brokers) cleanups.push(() => broker.close());
    const db = brokers[0]!.db;
    expect(await versionCount(db)).toBe(count);
    const owners = await db.query(
      `SELECT id FROM platform.accounts WHERE email = 'owner@example.com'`,
    );
    expect(owners.rows).toHaveLength(1);
  });
});
