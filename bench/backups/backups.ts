// Backups: the time and size of a backup and a restore of an app's database with 10k and 100k
// rows, against pg_dump and pg_restore run by hand on the same database in the same run
// (PostgreSQL), and PGlite's backup and restore beside them (its baseline is the same hand run
// on PostgreSQL's copy of the rows: another engine, shown for scale).
// As a suite of bench/run.ts: `backups: () => import('./backups/backups.ts')`.
// BENCH_BACKUP_ROWS=10000,100000 sets the sizes.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { platformSchema } from '../../packages/broker/src/app/platform-schema.ts';
import { BackupService } from '../../packages/broker/src/backups/backup-service.ts';
import { runPostgresTool } from '../../packages/broker/src/backups/pg-tools.ts';
import type { Database } from '../../packages/broker/src/db/database.ts';
import { openDatabase } from '../../packages/broker/src/db/open-database.ts';
import { FileService } from '../../packages/broker/src/files/file-service.ts';
import { systemClock } from '../../packages/broker/src/kernel/clock.ts';
import { startPostgres } from '../../packages/broker/test/helpers/postgres-server.ts';
import { numbersFromEnv, type Row, row } from '../report.ts';

const migration = (rows: number) => `
CREATE TABLE public.notes (id bigserial PRIMARY KEY, owner_id uuid, body text NOT NULL, at timestamptz NOT NULL DEFAULT now());
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_owner ON public.notes USING (owner_id IS NOT NULL);
INSERT INTO public.notes (owner_id, body)
  SELECT gen_random_uuid(), 'note number ' || g || ' ' || md5(g::text) FROM generate_series(1, ${rows}) g;
`;

const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

/** Opens the app of `rows` rows and measures our backup and restore. */
async function ours(db: Database, dir: string) {
  const stateDir = join(dir, '.platform');
  const files = new FileService(db, join(stateDir, 'files'));
  const backups = new BackupService({
    appId: 'bench',
    db,
    store: files.store,
    stateDir,
    platformSchema,
    clock: systemClock,
  });
  const [backup, backupMs] = await timed(() => backups.create('manual'));
  const [, restoreMs] = await timed(() => backups.restore(backup.id));
  return { backupMs, restoreMs, size: backup.size };
}

async function appDir(rows: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-backups-'));
  await mkdir(join(dir, 'migrations'));
  await writeFile(join(dir, 'migrations', '001_notes.sql'), migration(rows));
  return dir;
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const cluster = await startPostgres();
  try {
    for (const size of numbersFromEnv('BENCH_BACKUP_ROWS', '10000,100000')) {
      const name = `bench_backup_${size}`;
      const url = await cluster.createDatabase(name);
      const dir = await appDir(size);
      const { db } = await openDatabase({ appDir: dir, databaseUrl: url, platformSchema });
      // By hand first, on the same database: pg_dump -Fc, and pg_restore into a new database.
      const archive = join(dir, 'hand.dump');
      const [, dumpMs] = await timed(() =>
        runPostgresTool('pg_dump', url, ['--format=custom', `--file=${archive}`]),
      );
      const handSize = (await stat(archive)).size;
      const target = await cluster.createDatabase(`${name}_hand`);
      const [, handRestoreMs] = await timed(() =>
        runPostgresTool('pg_restore', target, [
          '--exit-on-error',
          '--single-transaction',
          `--dbname=${new URL(target).pathname.slice(1)}`,
          archive,
        ]),
      );
      const pg = await ours(db, dir);
      await db.close();
      await rm(dir, { recursive: true, force: true });
      rows.push(
        row(
          `postgres ${size} rows: backup time`,
          ms(pg.backupMs),
          ms(dumpMs),
          pg.backupMs / dumpMs,
        ),
        row(`postgres ${size} rows: backup size`, mb(pg.size), mb(handSize), pg.size / handSize),
        row(
          `postgres ${size} rows: restore time (ours swaps the database in)`,
          ms(pg.restoreMs),
          ms(handRestoreMs),
          pg.restoreMs / handRestoreMs,
        ),
      );
      const liteDir = await appDir(size);
      const lite = await openDatabase({
        appDir: liteDir,
        databaseUrl: '',
        snapshotPath: join(liteDir, 'snapshot.tar'),
        platformSchema,
      });
      const pl = await ours(lite.db, liteDir);
      await lite.db.close();
      await rm(liteDir, { recursive: true, force: true });
      rows.push(
        row(
          `pglite ${size} rows: backup time (vs pg_dump on postgres)`,
          ms(pl.backupMs),
          ms(dumpMs),
          pl.backupMs / dumpMs,
        ),
        row(
          `pglite ${size} rows: backup size (vs pg_dump on postgres)`,
          mb(pl.size),
          mb(handSize),
          pl.size / handSize,
        ),
        row(
          `pglite ${size} rows: restore time (vs pg_restore on postgres)`,
          ms(pl.restoreMs),
          ms(handRestoreMs),
          pl.restoreMs / handRestoreMs,
        ),
      );
    }
  } finally {
    await cluster.stop();
  }
  return rows;
}
