// A new app's database starts from a snapshot of a cluster that already has the platform schema,
// so `platform dev` in a new folder skips running every step. What must hold: the first new
// database runs the steps and writes that snapshot; the next one runs none and has every table;
// a schema that differs in any step never loads another's snapshot; an existing data directory
// is opened as it is; the snapshots of schemas no longer used do not pile up in the cache. A
// snapshot the package ships is used on a machine whose cache has none, once its checksum
// matches; and the one slow case, preparing a database from nothing, is announced before it runs.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import type { SchemaStep } from '../../src/db/platform-schema.ts';
import {
  openPgliteWithSchema,
  type PgliteWithSchemaOptions,
  pruneSchemaSnapshots,
  SHIPPED_SNAPSHOTS_LIST,
  schemaSnapshotPath,
} from '../../src/db/schema-snapshot.ts';
import { privateSnapshot } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const latest = platformSchema.at(-1)?.version ?? 0;

async function fresh(): Promise<string> {
  const snapshot = await privateSnapshot();
  cleanups.push(snapshot.remove);
  return snapshot.path;
}

async function open(
  snapshotPath: string,
  steps: readonly SchemaStep[],
  dataDir?: string,
  more: Partial<PgliteWithSchemaOptions> = {},
) {
  const opened = await openPgliteWithSchema({ snapshotPath, dataDir, ...more }, steps);
  cleanups.push(() => opened.db.close());
  return opened;
}

const tables = async (db: { query: <R>(sql: string) => Promise<{ rows: R[] }> }) =>
  (
    await db.query<{ name: string }>(
      `SELECT schemaname || '.' || tablename AS name FROM pg_tables WHERE schemaname = 'platform' ORDER BY 1`,
    )
  ).rows.map(({ name }) => name);

describe('the prepared schema snapshot', () => {
  it('is written by the first new database and loaded by the next, which runs no step', async () => {
    const base = await fresh();
    const prepared = schemaSnapshotPath(base, platformSchema);
    const first = await open(base, platformSchema);
    expect(first.platformSchema).toEqual({ from: 0, to: latest, applied: platformSchema });
    expect(first.db.openInfo.how).toBe('snapshot');
    expect(existsSync(prepared)).toBe(true);

    const second = await open(base, platformSchema);
    expect(second.db.openInfo.how).toBe('snapshot');
    expect(second.platformSchema).toEqual({ from: latest, to: latest, applied: [] });
    expect(await tables(second.db)).toEqual(await tables(first.db));
    expect(await tables(second.db)).toContain('platform.jobs');
  });

  it('is kept per schema: a changed step gets a snapshot of its own', async () => {
    const base = await fresh();
    await open(base, platformSchema);
    const extra: SchemaStep = {
      version: latest + 1,
      name: 'extra',
      sql: 'CREATE TABLE platform.extra (id int)',
    };
    const changed = [...platformSchema, extra];
    expect(schemaSnapshotPath(base, changed)).not.toBe(schemaSnapshotPath(base, platformSchema));
    const other = await open(base, changed);
    // Not the other schema's snapshot: every step ran, the new one included.
    expect(other.platformSchema.applied).toEqual(changed);
    const written = (await readdir(dirname(base))).filter((name) => name.includes('-schema-'));
    expect(written).toHaveLength(2);
  });

  it('leaves an existing data directory as it is and writes no snapshot from it', async () => {
    const base = await fresh();
    const dir = await tempDir('schema-data-');
    cleanups.push(dir.remove);
    const dataDir = join(dir.path, 'db');
    const created = await open(base, platformSchema, dataDir);
    await created.db.query('CREATE TABLE platform.kept (id int)');
    await created.db.close();
    const prepared = schemaSnapshotPath(base, platformSchema);
    await rm(prepared);
    const reopened = await open(base, platformSchema, dataDir);
    expect(reopened.db.openInfo.how).toBe('opened');
    expect(await tables(reopened.db)).toContain('platform.kept');
    expect(existsSync(prepared)).toBe(false);
  });

  it('keeps the three last used and removes older ones unused for a week', async () => {
    const base = await fresh();
    const day = 24 * 3_600_000;
    const other = (n: number) => `${base.replace(/\.tar$/, '')}-schema-${String(n).repeat(16)}.tar`;
    const aged = async (path: string, days: number) => {
      await writeFile(path, 'an older schema');
      const at = new Date(Date.now() - days * day);
      await utimes(path, at, at);
    };
    for (const [n, days] of [
      [1, 1],
      [2, 10],
      [3, 20],
      [4, 30],
    ] as const)
      await aged(other(n), days);
    const unrelated = join(dirname(base), 'not-a-snapshot.tar');
    await aged(unrelated, 40);

    // Writing this schema's snapshot keeps it and the two used last.
    await open(base, platformSchema);
    const prepared = schemaSnapshotPath(base, platformSchema);
    const left = (await readdir(dirname(base))).map((name) => join(dirname(base), name));
    expect(left.filter((path) => path.includes('-schema-')).sort()).toEqual(
      [prepared, other(1), other(2)].sort(),
    );
    expect(left).toContain(base);
    expect(left).toContain(unrelated);

    // Past the three, one used within the week stays.
    await aged(other(2), 3);
    await aged(other(3), 5);
    expect(await pruneSchemaSnapshots(base)).toEqual([]);
    await aged(other(3), 8);
    expect(await pruneSchemaSnapshots(base)).toEqual([other(3)]);
  });

  it('is marked used by every new database made from it', async () => {
    const base = await fresh();
    await open(base, platformSchema);
    const prepared = schemaSnapshotPath(base, platformSchema);
    const month = new Date(Date.now() - 30 * 24 * 3_600_000);
    await utimes(prepared, month, month);
    await open(base, platformSchema);
    expect((await stat(prepared)).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('a first start on a machine', () => {
  /** A cache folder holding only the fresh-cluster snapshot of `base`'s name: no prepared one. */
  async function emptyCache(base: string): Promise<string> {
    const dir = await tempDir('schema-cache-');
    cleanups.push(dir.remove);
    const path = join(dir.path, basename(base));
    await copyFile(base, path);
    return path;
  }

  /** A shipped-snapshots folder as the build makes it, from the prepared snapshot `tar`. */
  async function shipped(tar: string, checksum?: string): Promise<string> {
    const dir = await tempDir('schema-shipped-');
    cleanups.push(dir.remove);
    const bytes = await readFile(tar);
    await writeFile(join(dir.path, `${basename(tar)}.gz`), gzipSync(bytes));
    const sha256 = checksum ?? createHash('sha256').update(bytes).digest('hex');
    await writeFile(
      join(dir.path, SHIPPED_SNAPSHOTS_LIST),
      JSON.stringify({ snapshots: { [basename(tar)]: { sha256 } } }),
    );
    return dir.path;
  }

  it('is told it prepares the database on an empty cache, and not once the cache is warm', async () => {
    const base = await fresh();
    let told = 0;
    const first = await open(base, platformSchema, undefined, { onPreparing: () => told++ });
    expect(first.platformSchema.applied).toEqual(platformSchema);
    expect(told).toBe(1);
    await open(base, platformSchema, undefined, { onPreparing: () => told++ });
    expect(told).toBe(1);
  });

  it('is not told anything for a data directory that exists', async () => {
    const base = await fresh();
    const dir = await tempDir('schema-data-');
    cleanups.push(dir.remove);
    const dataDir = join(dir.path, 'db');
    await (await open(base, platformSchema, dataDir)).db.close();
    await rm(schemaSnapshotPath(base, platformSchema));
    let told = 0;
    const reopened = await open(base, platformSchema, dataDir, { onPreparing: () => told++ });
    expect(reopened.db.openInfo.how).toBe('opened');
    expect(told).toBe(0);
  });

  it('uses the snapshot the package ships once its checksum matches, and runs no step', async () => {
    const base = await fresh();
    await open(base, platformSchema);
    const ships = await shipped(schemaSnapshotPath(base, platformSchema));
    const cache = await emptyCache(base);
    let told = 0;
    const opened = await open(cache, platformSchema, undefined, {
      shippedSnapshots: ships,
      onPreparing: () => told++,
    });
    expect(told).toBe(0);
    expect(opened.db.openInfo.how).toBe('snapshot');
    expect(opened.platformSchema).toEqual({ from: latest, to: latest, applied: [] });
    expect(await tables(opened.db)).toContain('platform.jobs');
    // Copied into the cache: later new databases load it from there.
    const prepared = schemaSnapshotPath(cache, platformSchema);
    expect(await readFile(prepared)).toEqual(
      await readFile(schemaSnapshotPath(base, platformSchema)),
    );
  });

  it('prepares its own when the shipped snapshot does not match its checksum', async () => {
    const base = await fresh();
    await open(base, platformSchema);
    const ships = await shipped(schemaSnapshotPath(base, platformSchema), '0'.repeat(64));
    const cache = await emptyCache(base);
    let told = 0;
    const opened = await open(cache, platformSchema, undefined, {
      shippedSnapshots: ships,
      onPreparing: () => told++,
    });
    expect(told).toBe(1);
    expect(opened.platformSchema.applied).toEqual(platformSchema);
    // The one it wrote is its own, made by running the steps.
    expect(existsSync(schemaSnapshotPath(cache, platformSchema))).toBe(true);
  });

  it('prepares its own when the package ships none of its schema', async () => {
    const base = await fresh();
    await open(base, platformSchema);
    const ships = await shipped(schemaSnapshotPath(base, platformSchema));
    const cache = await emptyCache(base);
    const extra: SchemaStep = { version: latest + 1, name: 'extra', sql: 'SELECT 1' };
    let told = 0;
    const opened = await open(cache, [...platformSchema, extra], undefined, {
      shippedSnapshots: ships,
      onPreparing: () => told++,
    });
    expect(told).toBe(1);
    expect(opened.platformSchema.applied).toHaveLength(platformSchema.length + 1);
  });
});
