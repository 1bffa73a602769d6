// `platform serve`'s sweep of apps deleted with their owner's account (spec 3.5), on a fake
// clock, with the files in the bucket (s3rver) and in the files folder: the files whose rows went
// with the database go at once, each backup when its retention ends, the last ones (with the
// generations they held) 30 days after the deletion; an app deployed anew is never swept.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { limits } from '@platform/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { BackupService } from '../../src/backups/backup-service.ts';
import type { Database } from '../../src/db/database.ts';
import { FileService } from '../../src/files/file-service.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { openFileStore } from '../../src/files/files-feature.ts';
import { systemCaller } from '../../src/kernel/caller.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { createServiceLogger } from '../../src/observability/logger.ts';
import { DeletedAppSweeper } from '../../src/serve/deleted-app-sweeper.ts';
import { appFileStorage, appStateDir } from '../../src/serve/deployed-apps.ts';
import { loadServeSettings, type ServeSettings } from '../../src/serve/serve-settings.ts';
import { appWithDatabase, openTestCentral } from '../helpers/db.ts';
import { type S3TestServer, startS3Server } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SYSTEM = systemCaller();
const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const OWNER = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

/** Every object in the store, as `<id>/<generation>`, sorted. */
async function objects(store: FileStore): Promise<string[]> {
  const found: string[] = [];
  for await (const one of store.list()) found.push(`${one.fileId}/${one.generation}`);
  return found.sort();
}

/** An app of the registry with one deployment, as a first deployment leaves it. */
async function deployed(central: Database, appId: string): Promise<void> {
  await central.query('INSERT INTO platform.apps (app_id, owner_account_id) VALUES ($1, $2)', [
    appId,
    OWNER,
  ]);
  await central.query(
    `INSERT INTO platform.deployments
       (id, app_id, digest, manifest, migrations, functions, archive_bytes, deployed_by, created_at)
     VALUES ($1, $2, 'digest', '', '{}', '{}', 0, $3, now())`,
    [`dep_${appId}_${Date.now()}`, appId, OWNER],
  );
}

/** The registry's delete (the organisation's erasure), at the fake clock's time. */
async function deleted(central: Database, appId: string, at: Date): Promise<void> {
  await central.query('DELETE FROM platform.apps WHERE app_id = $1', [appId]);
  await central.query('UPDATE platform.deleted_apps SET deleted_at = $2 WHERE app_id = $1', [
    appId,
    at,
  ]);
}

interface Backend {
  readonly name: string;
  settings(dir: string): Promise<ServeSettings>;
}

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3Server();
}, 60_000);
afterAll(() => s3?.close());

async function serveSettings(dir: string, env: Record<string, string>): Promise<ServeSettings> {
  const loaded = await loadServeSettings({
    env: {
      PLATFORM_DATABASE_URL: 'postgres://u@localhost/db',
      PLATFORM_FILES_DIR: join(dir, 'files'),
      ...env,
    },
    cwd: dir,
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  return loaded.settings;
}

const backends: Backend[] = [
  {
    name: 'S3-compatible object storage (s3rver)',
    settings: (dir) =>
      serveSettings(dir, {
        PLATFORM_S3_BUCKET: s3.settings.bucket,
        PLATFORM_S3_ENDPOINT: s3.settings.endpoint,
        PLATFORM_S3_ACCESS_KEY_ID: s3.settings.accessKeyId ?? '',
        PLATFORM_S3_SECRET_ACCESS_KEY: s3.settings.secretAccessKey ?? '',
        PLATFORM_S3_FORCE_PATH_STYLE: 'true',
      }),
  },
  { name: 'the files folder', settings: (dir) => serveSettings(dir, {}) },
];

describe.each(backends)('the sweep of deleted apps with the files in $name', (backend) => {
  it('frees unheld files at once and erases each backup when its retention ends, all within 30 days', async () => {
    const dir = await tempDir('deleted-sweep-');
    const central = await openTestCentral();
    const app = await appWithDatabase({}, { inMemory: true });
    const settings = await backend.settings(dir.path);
    const appId = `notes-${backend.name.startsWith('S3') ? 's3' : 'folder'}`;
    const storage = appFileStorage(settings, appId);
    const where = { stateDir: appStateDir(settings.filesDir, appId), appId };
    const store = openFileStore(storage, where);
    const clock = new ManualClock('2026-03-01T10:00:00Z');
    const sweeper = new DeletedAppSweeper({
      settings,
      central,
      clock,
      logger: createServiceLogger({ level: 'error', destination: { write: () => undefined } }),
      // Weeks beyond the 30 days (the default keeps 4): the deletion's deadline cuts them short.
      retention: { daily: 7, weekly: 8 },
    });
    try {
      await deployed(central, appId);
      const files = new FileService(app.db, store, { clock });
      const backups = new BackupService({
        appId,
        db: app.db,
        store,
        stateDir: join(dir.path, 'work'),
        platformSchema,
        clock,
      });
      const upload = async (text: string) =>
        (
          await files.upload(SYSTEM, {
            data: Buffer.from(text),
            name: `${text}.txt`,
            contentType: 'text/plain',
          })
        ).ref;
      const a = await upload('a');
      const b = await upload('b');
      const first = await backups.create('manual');
      clock.advance(3 * DAY);
      await files.replace(SYSTEM, b, { data: Buffer.from('b2') });
      const c = await upload('c');
      const second = await backups.create('scheduled');
      const d = await upload('d');
      clock.advance(HOUR);
      const deletedAt = clock.now();
      await deleted(central, appId, deletedAt);

      // An hour on: both backups are retained; only d, which no backup holds, goes.
      clock.advance(HOUR);
      let sweep = (await sweeper.sweep()).get(appId);
      expect(sweep).toEqual({ erased: [], freedGenerations: 1, remaining: 2 });
      const backupObjects = (id: string) => [`${id}/1`, `${id}/2`];
      expect(await objects(store)).toEqual(
        [
          `${a}/1`,
          `${b}/1`,
          `${b}/2`,
          `${c}/1`,
          ...backupObjects(first.id),
          ...backupObjects(second.id),
        ].sort(),
      );
      expect(await objects(store)).not.toContain(`${d}/1`);

      // Eight days on, the first backup is no longer the newest of its week: it goes, with the
      // generation only it held (b's first; a's is the second backup's too).
      clock.advance(8 * DAY);
      sweep = (await sweeper.sweep()).get(appId);
      expect(sweep).toEqual({ erased: [first.id], freedGenerations: 1, remaining: 1 });
      expect(await objects(store)).toEqual(
        [`${a}/1`, `${b}/2`, `${c}/1`, ...backupObjects(second.id)].sort(),
      );

      // Still retained the second before the deadline; gone, with its bytes, at the deadline.
      clock.set(new Date(deletedAt.getTime() + limits.backups.erasureMaxSeconds * 1000 - 1000));
      expect((await sweeper.sweep()).get(appId)).toMatchObject({ erased: [], remaining: 1 });
      clock.advance(1000);
      sweep = (await sweeper.sweep()).get(appId);
      expect(sweep).toEqual({ erased: [second.id], freedGenerations: 3, remaining: 0 });
      expect(await objects(store)).toEqual([]);
      if (storage.kind === 'folder') expect(existsSync(storage.dir ?? '')).toBe(false);
      const { rows } = await central.query<{ files_erased_at: Date | null }>(
        'SELECT files_erased_at FROM platform.deleted_apps WHERE app_id = $1',
        [appId],
      );
      expect(rows[0]?.files_erased_at).not.toBeNull();
      // Done with: the next sweeps pass it by.
      expect((await sweeper.sweep()).has(appId)).toBe(false);
    } finally {
      await sweeper.close();
      store.close();
      await app.cleanup();
      await central.close();
      await dir.remove();
    }
  }, 60_000);

  it('never sweeps an app deployed anew under the same id', async () => {
    const dir = await tempDir('deleted-sweep-anew-');
    const central = await openTestCentral();
    const app = await appWithDatabase({}, { inMemory: true });
    const settings = await backend.settings(dir.path);
    const appId = `crm-${backend.name.startsWith('S3') ? 's3' : 'folder'}`;
    const store = openFileStore(appFileStorage(settings, appId), {
      stateDir: appStateDir(settings.filesDir, appId),
      appId,
    });
    const clock = new ManualClock('2026-03-01T10:00:00Z');
    const sweeper = new DeletedAppSweeper({
      settings,
      central,
      clock,
      logger: createServiceLogger({ level: 'error', destination: { write: () => undefined } }),
    });
    try {
      await deployed(central, appId);
      await deleted(central, appId, clock.now());
      await deployed(central, appId);
      const files = new FileService(app.db, store, { clock });
      const ref = (
        await files.upload(SYSTEM, {
          data: Buffer.from('new app'),
          name: 'n.txt',
          contentType: 'text/plain',
        })
      ).ref;
      clock.advance(31 * DAY);
      expect((await sweeper.sweep()).has(appId)).toBe(false);
      expect(await objects(store)).toEqual([`${ref}/1`]);
    } finally {
      await sweeper.close();
      store.close();
      await app.cleanup();
      await central.close();
      await dir.remove();
    }
  }, 60_000);
});
