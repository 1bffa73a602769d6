// A new app's database starts from a snapshot of a cluster that already has the platform schema,
// so `platform dev` in a new folder skips running every step. What must hold: the first new
// database runs the steps and writes that snapshot; the next one runs none and has every table;
// a schema that differs in any step never loads another's snapshot; an existing data directory
// is opened as it is.
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import type { SchemaStep } from '../../src/db/platform-schema.ts';
import { openPgliteWithSchema, schemaSnapshotPath } from '../../src/db/schema-snapshot.ts';
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

async function open(snapshotPath: string, steps: readonly SchemaStep[], dataDir?: string) {
  const opened = await openPgliteWithSchema({ snapshotPath, dataDir }, steps);
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
});
