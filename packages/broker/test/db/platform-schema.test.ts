import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import type { Database } from '../../src/db/database.ts';
import { PgliteDatabase } from '../../src/db/pglite-database.ts';
import {
  applyPlatformSchema,
  PlatformSchemaError,
  type SchemaStep,
} from '../../src/db/platform-schema.ts';
import { appWithDatabase, privateSnapshot, reopen, testSnapshotPath } from '../helpers/db.ts';

const latest = platformSchema.at(-1)?.version ?? 0;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const versions = async (db: Database) =>
  (
    await db.query<{ version: number; name: string }>(
      'SELECT version, name FROM platform.schema_versions ORDER BY version',
    )
  ).rows;

const exists = async (db: Database, name: string) =>
  (await db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [name]))
    .rows[0]?.found !== null;

describe('the platform schema', () => {
  it('gives a new database every step once, and a second start applies nothing', async () => {
    // A fresh-cluster snapshot of its own: with the shared one, a new database would start from
    // the prepared snapshot another test wrote, with every step already taken.
    const snapshot = await privateSnapshot();
    cleanups.push(snapshot.remove);
    const app = await appWithDatabase({}, { snapshotPath: snapshot.path });
    cleanups.push(app.cleanup);
    expect(app.platformSchema).toEqual({ from: 0, to: latest, applied: platformSchema });
    expect(await versions(app.db)).toEqual(
      platformSchema.map(({ version, name }) => ({ version, name })),
    );
    for (const table of [
      'platform.files',
      'platform.outbox',
      'platform.accounts',
      'platform.jobs',
      'platform.cron_state',
    ]) {
      expect(await exists(app.db, table)).toBe(true);
    }
    await app.db.close();

    const again = await reopen(app.appDir);
    cleanups.push(() => again.db.close());
    expect(again.platformSchema).toEqual({ from: latest, to: latest, applied: [] });
    expect(await versions(again.db)).toHaveLength(platformSchema.length);
  });

  it('refuses a database a newer broker has used, and changes nothing in it', async () => {
    const app = await appWithDatabase();
    cleanups.push(app.cleanup);
    await app.db.query('INSERT INTO platform.schema_versions (version, name) VALUES ($1, $2)', [
      latest + 1,
      'from a newer broker',
    ]);
    await expect(applyPlatformSchema(app.db, platformSchema)).rejects.toMatchObject({
      name: 'PlatformSchemaError',
      version: latest + 1,
    });
    await app.db.close();

    // Opening the app as a broker does: refused before the app's migrations run.
    await writeFile(
      join(app.appDir, 'migrations', '001_later.sql'),
      'create table later (id int);',
    );
    const refused = reopen(app.appDir);
    await expect(refused).rejects.toBeInstanceOf(PlatformSchemaError);
    await expect(refused).rejects.toThrow(
      `The database's platform schema is at version ${latest + 1}, but this broker knows versions up to ${latest}: a newer broker has used this database. Start it with that newer broker.`,
    );
    const raw = await PgliteDatabase.open({
      dataDir: join(app.appDir, '.platform', 'db'),
      snapshotPath: testSnapshotPath,
    });
    cleanups.push(() => raw.close());
    expect(await versions(raw)).toHaveLength(platformSchema.length + 1);
    expect(await exists(raw, 'public.later')).toBe(false);
    expect((await raw.query('SELECT name FROM platform.migrations')).rows).toEqual([]);
  });

  it('rolls a failing step back entirely, stops there, and runs it again next time', async () => {
    const app = await appWithDatabase({}, { inMemory: true });
    cleanups.push(app.cleanup);
    const half: SchemaStep = {
      version: latest + 1,
      name: 'half',
      sql: `CREATE TABLE platform.half (id int);
            ALTER TABLE platform.files ADD COLUMN extra text;
            CREATE INDEX half_outbox ON platform.outbox (subject);
            SELECT 1 / 0;`,
    };
    const after: SchemaStep = {
      version: latest + 2,
      name: 'after',
      sql: 'CREATE TABLE platform.after (id int)',
    };
    const failed = applyPlatformSchema(app.db, [...platformSchema, half, after]);
    await expect(failed).rejects.toBeInstanceOf(PlatformSchemaError);
    await expect(failed).rejects.toThrow(
      `Platform schema step ${latest + 1} (half) failed: division by zero`,
    );
    expect(await versions(app.db)).toHaveLength(platformSchema.length);
    expect(await exists(app.db, 'platform.half')).toBe(false);
    expect(await exists(app.db, 'platform.half_outbox')).toBe(false);
    expect(await exists(app.db, 'platform.after')).toBe(false);
    const { rows } = await app.db.query(
      `SELECT 1 FROM information_schema.columns
       WHERE table_schema = 'platform' AND table_name = 'files' AND column_name = 'extra'`,
    );
    expect(rows).toEqual([]);

    const fixed = { ...half, sql: 'CREATE TABLE platform.half (id int)' };
    const report = await applyPlatformSchema(app.db, [...platformSchema, fixed, after]);
    expect(report.applied.map((step) => step.name)).toEqual(['half', 'after']);
    expect(await versions(app.db)).toHaveLength(platformSchema.length + 2);
  });

  it('refuses steps whose versions do not rise', async () => {
    const app = await appWithDatabase({}, { inMemory: true });
    cleanups.push(app.cleanup);
    const [first, second] = platformSchema as [SchemaStep, SchemaStep];
    await expect(applyPlatformSchema(app.db, [second, first])).rejects.toBeInstanceOf(TypeError);
    await expect(applyPlatformSchema(app.db, [first, { ...second, version: 1 }])).rejects.toThrow(
      /has version 1; expected more than 1/,
    );
  });

  it('applies a step below the highest recorded one, and refuses a step it does not know', async () => {
    const app = await appWithDatabase({}, { inMemory: true });
    cleanups.push(app.cleanup);
    const reserved: SchemaStep = {
      version: latest + 1,
      name: 'reserved',
      sql: 'CREATE TABLE platform.reserved (id int)',
    };
    const later: SchemaStep = {
      version: latest + 2,
      name: 'later',
      sql: 'CREATE TABLE platform.later (id int)',
    };
    await applyPlatformSchema(app.db, [...platformSchema, later]);
    // A step numbered before one the database already took (built side by side) still runs.
    const report = await applyPlatformSchema(app.db, [...platformSchema, reserved, later]);
    expect(report.applied.map((step) => step.name)).toEqual(['reserved']);
    expect(await exists(app.db, 'platform.reserved')).toBe(true);
    // A broker without a step the database took is refused, also below its own latest step.
    await expect(applyPlatformSchema(app.db, [...platformSchema, later])).rejects.toThrow(
      `has step ${latest + 1}, which this broker does not know`,
    );
  });
});
