// A backup taken while 20 writers move money between accounts is one state of the database:
// the total the writers keep holds in the restored copy, under PGlite and PostgreSQL.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { BackupService } from '../../src/backups/backup-service.ts';
import type { Database } from '../../src/db/database.ts';
import { FileService } from '../../src/files/file-service.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { appWithDatabase, openPostgres } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const ACCOUNTS = 50;
const TOTAL = ACCOUNTS * 1000;
const migration = `
CREATE TABLE public.accounts (id int PRIMARY KEY, balance int NOT NULL);
CREATE TABLE public.transfers (id bigserial PRIMARY KEY, amount int NOT NULL);
INSERT INTO public.accounts SELECT g, 1000 FROM generate_series(1, ${ACCOUNTS}) g;
`;

const total = async (db: Database) =>
  Number(
    (await db.query<{ t: number }>('SELECT sum(balance)::int AS t FROM public.accounts')).rows[0]
      ?.t,
  );
const transfers = async (db: Database) =>
  Number(
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM public.transfers')).rows[0]?.n,
  );

async function consistentUnderWriters(db: Database, stateDir: string): Promise<void> {
  const files = new FileService(db, join(stateDir, 'files'));
  const backups = new BackupService({
    appId: 'bank',
    db,
    store: files.store,
    stateDir,
    platformSchema,
    clock: systemClock,
  });
  let stop = false;
  let moved = 0;
  // Each transfer debits one account, credits another and records itself, in one transaction.
  const writer = async (seed: number) => {
    let i = seed;
    while (!stop) {
      const from = (i % ACCOUNTS) + 1;
      const to = ((i * 7 + 3) % ACCOUNTS) + 1;
      const amount = (i % 13) + 1;
      await db.transaction(async (tx) => {
        await tx.query('UPDATE public.accounts SET balance = balance - $2 WHERE id = $1', [
          from,
          amount,
        ]);
        await tx.query('UPDATE public.accounts SET balance = balance + $2 WHERE id = $1', [
          to,
          amount,
        ]);
        await tx.query('INSERT INTO public.transfers (amount) VALUES ($1)', [amount]);
      });
      moved++;
      i += 20;
    }
  };
  const writers = Array.from({ length: 20 }, (_, seed) =>
    writer(seed).catch((error: unknown) => {
      // PostgreSQL may pick one of two crossing transfers to break a deadlock.
      if ((error as { sqlState?: string; code?: string }).code !== '40P01') throw error;
    }),
  );
  while (moved < 100) await new Promise((resolve) => setTimeout(resolve, 10));
  const backup = await backups.create('manual');
  const atBackup = moved;
  while (moved < atBackup + 100) await new Promise((resolve) => setTimeout(resolve, 10));
  stop = true;
  await Promise.all(writers);
  const after = await transfers(db);

  await backups.restore(backup.id);
  expect(await total(db)).toBe(TOTAL);
  const restored = await transfers(db);
  expect(restored).toBeGreaterThan(0);
  // Taken mid-run: later transfers are not in it.
  expect(restored).toBeLessThan(after);
}

describe('a backup taken while 20 writers run', () => {
  it('is consistent on PGlite', async () => {
    const app = await appWithDatabase({ '001_bank.sql': migration });
    try {
      await consistentUnderWriters(app.db, join(app.appDir, '.platform'));
    } finally {
      await app.cleanup();
    }
  }, 120_000);

  describe('on PostgreSQL', () => {
    let server: PostgresServer;
    beforeAll(async () => {
      server = await startPostgres();
    }, 60_000);
    afterAll(() => server?.stop());

    it('is consistent', async () => {
      const dir = await tempDir('backup-writers-');
      const url = await server.createDatabase('backup_writers');
      await mkdir(join(dir.path, 'migrations'), { recursive: true });
      await writeFile(join(dir.path, 'migrations', '001_bank.sql'), migration);
      const { db } = await openPostgres(url, dir.path);
      try {
        await consistentUnderWriters(db, join(dir.path, '.platform'));
      } finally {
        await db.close();
        await dir.remove();
      }
    }, 120_000);
  });
});
