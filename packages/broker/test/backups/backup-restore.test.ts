import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { BackupService } from '../../src/backups/backup-service.ts';
import type { Database } from '../../src/db/database.ts';
import { FileService } from '../../src/files/file-service.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { openFileStore } from '../../src/files/files-feature.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { appWithDatabase, openPostgres } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type S3TestServer, startS3Server } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const migration = `
CREATE SEQUENCE public.ticket_numbers START 100;
CREATE TABLE public.notes (
  id bigserial PRIMARY KEY,
  owner_id uuid,
  body text NOT NULL,
  ticket bigint NOT NULL DEFAULT nextval('public.ticket_numbers')
);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_owner ON public.notes USING (owner_id IS NOT NULL);
CREATE TABLE public.accounts (id int PRIMARY KEY, balance int NOT NULL);
`;

const system = { kind: 'system' } as const;

interface Env {
  readonly db: Database;
  readonly dir: string;
  readonly cleanup: () => Promise<void>;
  /** Where the files and the backups go: the app's files folder unless given. */
  readonly store?: FileStore;
}

/** What the test compares before the damage and after the restore. */
async function state(db: Database, files: FileService) {
  const notes = await db.query('SELECT id, owner_id, body, ticket FROM public.notes ORDER BY id');
  const policies = await db.query(
    "SELECT policyname, qual FROM pg_policies WHERE schemaname = 'public' ORDER BY policyname",
  );
  const rls = await db.query(
    "SELECT relname, relrowsecurity FROM pg_class WHERE relname IN ('notes', 'accounts') ORDER BY relname",
  );
  const sequence = await db.query('SELECT last_value FROM public.ticket_numbers');
  const serial = await db.query('SELECT last_value FROM public.notes_id_seq');
  const { rows } = await db.query<{ id: string }>('SELECT id FROM platform.files ORDER BY id');
  const bytes: Record<string, string> = {};
  for (const { id } of rows) bytes[id] = (await files.download(system, id)).data.toString('utf8');
  return {
    notes: notes.rows,
    policies: policies.rows,
    rls: rls.rows,
    sequence: sequence.rows,
    serial: serial.rows,
    bytes,
  };
}

async function roundTrip(env: Env): Promise<void> {
  const files = new FileService(env.db, env.store ?? join(env.dir, 'files'));
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const backups = new BackupService({
    appId: 'notes',
    db: env.db,
    store: files.store,
    stateDir: env.dir,
    platformSchema,
    clock,
  });
  for (let i = 0; i < 5; i++) {
    await env.db.query('INSERT INTO public.notes (owner_id, body) VALUES (gen_random_uuid(), $1)', [
      `note ${i}`,
    ]);
  }
  const kept = await files.upload(system, {
    data: Buffer.from('kept'),
    name: 'a.txt',
    contentType: 'text/plain',
  });
  const replaced = await files.upload(system, {
    data: Buffer.from('first'),
    name: 'b.txt',
    contentType: 'text/plain',
  });
  const before = await state(env.db, files);

  const backup = await backups.create('manual');
  expect(await backups.list()).toEqual([
    expect.objectContaining({ id: backup.id, kind: 'manual', files: 2 }),
  ]);
  // The archive and its record sit in the files' store, beside the files' generations.
  const stored: string[] = [];
  for await (const one of files.store.list()) {
    if (one.fileId === backup.id) stored.push(`${one.fileId}/${one.generation}`);
  }
  expect(stored.sort()).toEqual([`${backup.id}/1`, `${backup.id}/2`]);

  // The damage: a dropped table, a removed and a replaced file, changed rows, a moved sequence.
  await env.db.exec('DROP TABLE public.notes CASCADE');
  await env.db.query("SELECT nextval('public.ticket_numbers')");
  await files.remove(system, kept.ref);
  await files.replace(system, replaced.ref, { data: Buffer.from('second') });
  await env.db.query('INSERT INTO public.accounts VALUES (1, 5)');

  await backups.restore(backup.id);
  expect(await state(env.db, files)).toEqual(before);
  expect((await env.db.query('SELECT * FROM public.accounts')).rows).toEqual([]);
  // The restored database is the platform schema's current version and takes writes.
  const { rows } = await env.db.query<{ v: number }>(
    'SELECT max(version)::int AS v FROM platform.schema_versions',
  );
  expect(rows[0]?.v).toBe(platformSchema.at(-1)?.version);
  await env.db.query(
    "INSERT INTO public.notes (owner_id, body) VALUES (gen_random_uuid(), 'after')",
  );

  // Once no backup holds them, the removed file's bytes go.
  await files.remove(system, kept.ref);
  const held = await files.store.get(kept.ref, 1);
  expect(held).toBeDefined();
  held?.destroy();
  await backups.remove(backup.id);
  expect(await files.store.get(kept.ref, 1)).toBeUndefined();
  // The generation the restore left without a row goes with the sweep; the restored one stays.
  await files.sweep(0);
  expect(await files.store.get(replaced.ref, 2)).toBeUndefined();
  expect((await files.download(system, replaced.ref)).data.toString()).toBe('first');
  expect(await backups.list()).toEqual([]);
}

describe('backup and restore on PGlite', () => {
  it('brings back rows, policies, sequences and file bytes after damage', async () => {
    const app = await appWithDatabase({ '001_notes.sql': migration });
    try {
      await roundTrip({ db: app.db, dir: join(app.appDir, '.platform'), cleanup: app.cleanup });
    } finally {
      await app.cleanup();
    }
  });

  it('restores a database kept in memory', async () => {
    const app = await appWithDatabase({ '001_notes.sql': migration }, { inMemory: true });
    try {
      await roundTrip({ db: app.db, dir: join(app.appDir, '.platform'), cleanup: app.cleanup });
    } finally {
      await app.cleanup();
    }
  });
});

describe('backup and restore on PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it('brings back rows, policies, sequences and file bytes after damage', async () => {
    const dir = await tempDir('backup-pg-');
    const url = await server.createDatabase('backup_round_trip');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(dir.path, 'migrations'), { recursive: true });
    await writeFile(join(dir.path, 'migrations', '001_notes.sql'), migration);
    const { db } = await openPostgres(url, dir.path);
    try {
      await roundTrip({ db, dir: join(dir.path, '.platform'), cleanup: dir.remove });
    } finally {
      await db.close();
      await dir.remove();
    }
  }, 60_000);
});

describe('backup and restore with the files in S3-compatible object storage (s3rver)', () => {
  let s3: S3TestServer;
  let pg: PostgresServer;
  beforeAll(async () => {
    [s3, pg] = await Promise.all([startS3Server(), startPostgres()]);
  }, 60_000);
  afterAll(async () => {
    await s3?.close();
    await pg?.stop();
  });

  it('brings back rows, policies, sequences and file bytes on PGlite', async () => {
    const app = await appWithDatabase({ '001_notes.sql': migration });
    const stateDir = join(app.appDir, '.platform');
    const store = openFileStore({ kind: 's3', ...s3.settings }, { stateDir, appId: 'notes-s3' });
    try {
      expect(store.description).toMatch(/^s3 /);
      await roundTrip({ db: app.db, dir: stateDir, cleanup: app.cleanup, store });
    } finally {
      store.close();
      await app.cleanup();
    }
  }, 60_000);

  it('brings back rows, policies, sequences and file bytes on PostgreSQL', async () => {
    const dir = await tempDir('backup-pg-s3-');
    const url = await pg.createDatabase('backup_round_trip_s3');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(dir.path, 'migrations'), { recursive: true });
    await writeFile(join(dir.path, 'migrations', '001_notes.sql'), migration);
    const { db } = await openPostgres(url, dir.path);
    const stateDir = join(dir.path, '.platform');
    const store = openFileStore({ kind: 's3', ...s3.settings }, { stateDir, appId: 'notes-pg' });
    try {
      await roundTrip({ db, dir: stateDir, cleanup: dir.remove, store });
    } finally {
      store.close();
      await db.close();
      await dir.remove();
    }
  }, 60_000);
});
