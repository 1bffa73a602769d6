// A backup taken by an older broker, whose platform schema stopped some steps back, restored by
// the current one: the restored database takes the steps it missed, and the app's rows, its
// sequence and its files come back as they were.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { BackupService } from '../../src/backups/backup-service.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { applyPlatformSchema, type SchemaStep } from '../../src/db/platform-schema.ts';
import { fileHoldsStep } from '../../src/files/file-schema.ts';
import { FileService } from '../../src/files/file-service.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { privateSnapshot } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const migration = `
CREATE TABLE public.notes (id bigserial PRIMARY KEY, body text NOT NULL);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_any ON public.notes USING (true);
`;
const system = { kind: 'system' } as const;

// The older broker's schema: every step up to the one that made backups possible (the file
// holds), none after. The newer steps are what the restore must add.
const holdsAt = platformSchema.findIndex((step) => step.sql === fileHoldsStep.sql);
const olderSchema: readonly SchemaStep[] = platformSchema.slice(0, holdsAt + 1);
const newerSteps = platformSchema.slice(holdsAt + 1);

const versions = async (db: Database): Promise<number[]> =>
  (
    await db.query<{ version: number }>(
      'SELECT version FROM platform.schema_versions ORDER BY version',
    )
  ).rows.map((row) => Number(row.version));

async function appFolder(prefix: string) {
  const dir = await tempDir(prefix);
  await mkdir(join(dir.path, 'migrations'), { recursive: true });
  await writeFile(join(dir.path, 'migrations', '001_notes.sql'), migration);
  return dir;
}

/**
 * The older broker writes rows and a file and takes a backup; the newer one opens the same
 * database (taking the newer steps), the data is damaged, and the older backup is restored.
 */
async function olderBackupRestored(open: (schema: readonly SchemaStep[]) => Promise<Database>) {
  const clock = new ManualClock('2026-05-04T09:00:00Z');
  const older = await open(olderSchema);
  let backupId: string;
  let file: string;
  const work = await tempDir('old-schema-work-');
  const filesDir = join(work.path, 'files');
  const stateDir = join(work.path, 'state');
  try {
    expect(await versions(older)).toEqual(olderSchema.map((step) => step.version));
    for (const body of ['one', 'two', 'three']) {
      await older.query('INSERT INTO public.notes (body) VALUES ($1)', [body]);
    }
    const files = new FileService(older, filesDir);
    file = (
      await files.upload(system, {
        data: Buffer.from('kept by the old backup'),
        name: 'a.txt',
        contentType: 'text/plain',
      })
    ).ref;
    const backup = await new BackupService({
      appId: 'notes',
      db: older,
      store: files.store,
      stateDir,
      platformSchema: olderSchema,
      clock,
    }).create('manual');
    backupId = backup.id;
  } finally {
    await older.close();
  }
  try {
    await restoredByNewer(open, { backupId, file, filesDir, stateDir, clock });
  } finally {
    await work.remove();
  }
}

async function restoredByNewer(
  open: (schema: readonly SchemaStep[]) => Promise<Database>,
  at: { backupId: string; file: string; filesDir: string; stateDir: string; clock: ManualClock },
): Promise<void> {
  const { backupId, file, filesDir, stateDir, clock } = at;

  const db = await open(platformSchema);
  try {
    expect(await versions(db)).toEqual(platformSchema.map((step) => step.version));
    const files = new FileService(db, filesDir);
    const backups = new BackupService({
      appId: 'notes',
      db,
      store: files.store,
      stateDir,
      platformSchema,
      clock,
    });
    const record = await backups.catalog.get(backupId);
    expect(record.platformSchemaVersion).toBe(olderSchema.at(-1)?.version);

    await db.exec('DROP TABLE public.notes');
    await files.remove(system, file);
    await backups.restore(backupId);

    // Every step the older broker lacked ran on the restored database, once.
    expect(await versions(db)).toEqual(platformSchema.map((step) => step.version));
    const notes = await db.query<{ id: string; body: string }>(
      'SELECT id::int AS id, body FROM public.notes ORDER BY id',
    );
    expect(notes.rows).toEqual([
      { id: 1, body: 'one' },
      { id: 2, body: 'two' },
      { id: 3, body: 'three' },
    ]);
    const policies = await db.query<{ policyname: string }>(
      "SELECT policyname FROM pg_policies WHERE tablename = 'notes'",
    );
    expect(policies.rows).toEqual([{ policyname: 'notes_any' }]);
    expect((await files.download(system, file)).data.toString()).toBe('kept by the old backup');
    // The sequence goes on from where the backup left it, and the upgraded tables take writes.
    const { rows } = await db.query<{ id: number }>(
      "INSERT INTO public.notes (body) VALUES ('four') RETURNING id::int AS id",
    );
    expect(rows[0]?.id).toBe(4);
    // A second pass over the schema finds nothing left to do.
    expect((await applyPlatformSchema(db, platformSchema)).applied).toEqual([]);
  } finally {
    await db.close();
  }
}

describe('restoring a backup taken under an older platform schema', () => {
  it('has steps after the older schema to apply', () => {
    expect(holdsAt).toBeGreaterThan(0);
    expect(newerSteps.length).toBeGreaterThan(0);
  });

  it('upgrades it on PGlite with the data intact', async () => {
    // A snapshot of its own: the older schema's prepared snapshot stays out of the shared cache.
    const snapshot = await privateSnapshot();
    const dir = await appFolder('old-schema-pglite-');
    try {
      await olderBackupRestored(async (schema) => {
        const { db } = await openDatabase({
          appDir: dir.path,
          databaseUrl: '',
          snapshotPath: snapshot.path,
          platformSchema: schema,
        });
        return db;
      });
    } finally {
      await dir.remove();
      await snapshot.remove();
    }
  }, 60_000);

  describe('on PostgreSQL', () => {
    let server: PostgresServer;
    beforeAll(async () => {
      server = await startPostgres();
    }, 60_000);
    afterAll(() => server?.stop());

    it('upgrades it with the data intact', async () => {
      const url = await server.createDatabase('backup_old_schema');
      const dir = await appFolder('old-schema-pg-');
      try {
        await olderBackupRestored(async (schema) => {
          const { db } = await openDatabase({
            appDir: dir.path,
            databaseUrl: url,
            platformSchema: schema,
          });
          return db;
        });
      } finally {
        await dir.remove();
      }
    }, 60_000);
  });
});
