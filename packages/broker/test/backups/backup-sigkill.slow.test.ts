// SIGKILL during a backup leaves no half backup listed; SIGKILL during a restore leaves a
// database that opens with the old data or the restored data, never neither. Each kill lands at
// another moment of the work, by a delay spread over its measured length.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { BackupService } from '../../src/backups/backup-service.ts';
import { FileService } from '../../src/files/file-service.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { appWithDatabase, reopen } from '../helpers/db.ts';
import { startChild } from '../jobs/child-broker.ts';

const child = new URL('./fixtures/backup-child.ts', import.meta.url).pathname;
let app: Awaited<ReturnType<typeof appWithDatabase>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service over the app's database as it is on disk now (the caller closes the database). */
async function open() {
  const { db } = await reopen(app.appDir);
  const stateDir = join(app.appDir, '.platform');
  const files = new FileService(db, join(stateDir, 'files'));
  const backups = new BackupService({
    appId: 'notes',
    db,
    store: files.store,
    stateDir,
    platformSchema,
    clock: systemClock,
  });
  return { db, files, backups };
}

beforeAll(async () => {
  app = await appWithDatabase({
    '001_notes.sql': `CREATE TABLE public.notes (id serial PRIMARY KEY, body text NOT NULL);
INSERT INTO public.notes (body) SELECT 'note ' || g FROM generate_series(1, 2000) g;`,
  });
  const files = new FileService(app.db, join(app.appDir, '.platform', 'files'));
  await files.upload(
    { kind: 'system' },
    { data: Buffer.from('x'), name: 'x', contentType: 'text/plain' },
  );
  await app.db.close();
}, 60_000);
afterAll(() => app?.cleanup().catch(() => undefined));

describe('SIGKILL', () => {
  it('during a backup leaves no half backup listed', async () => {
    for (const delay of [300, 900, 1700, 2600]) {
      const run = startChild({ APP_DIR: app.appDir, ACTION: 'backup' }, child);
      await run.next('ready');
      await sleep(delay);
      await run.kill();
      const { db, backups } = await open();
      try {
        for (const backup of await backups.list()) {
          const archive = await backups.catalog.archive(backup.id);
          expect(archive, backup.id).toBeDefined();
          archive?.destroy();
        }
        // What the killed backup left is removed by the next prune.
        await backups.prune();
        expect(await backups.catalog.unfinished()).toEqual([]);
      } finally {
        await db.close();
      }
    }
  }, 240_000);

  it('during a restore leaves the old database or the restored one serving', async () => {
    let { db, backups } = await open();
    const { id } = await backups.create('manual');
    await db.exec("INSERT INTO public.notes (body) VALUES ('after the backup')");
    await db.close();
    // How long a whole restore takes here, to spread the kills over it.
    const started = Date.now();
    const whole = startChild({ APP_DIR: app.appDir, ACTION: 'restore', BACKUP_ID: id }, child);
    await whole.next('restored', 120_000);
    const length = Date.now() - started;
    await whole.stop();
    const outcomes = new Set<string>();
    for (const fraction of [0.3, 0.5, 0.7, 0.8, 0.9, 0.95]) {
      ({ db } = await open());
      await db.exec("DELETE FROM public.notes WHERE body = 'after the backup'");
      await db.exec("INSERT INTO public.notes (body) VALUES ('after the backup')");
      await db.close();
      const run = startChild({ APP_DIR: app.appDir, ACTION: 'restore', BACKUP_ID: id }, child);
      await sleep(length * fraction);
      await run.kill();
      ({ db } = await open());
      try {
        const { rows } = await db.query<{ n: number; after: number }>(
          "SELECT count(*)::int AS n, count(*) FILTER (WHERE body = 'after the backup')::int AS after FROM public.notes",
        );
        // The old data (2001 rows, one after the backup) or the backup's (2000, none).
        expect([
          { n: 2001, after: 1 },
          { n: 2000, after: 0 },
        ]).toContainEqual(rows[0]);
        outcomes.add(rows[0]?.after === 1 ? 'old' : 'restored');
      } finally {
        await db.close();
      }
      expect(existsSync(join(app.appDir, '.platform', 'db.replaced'))).toBe(false);
    }
    expect(outcomes.has('old')).toBe(true);
  }, 300_000);
});
