// A backup of an app deployed to `platform serve` restored into a new app beside it: the new app
// gets a database of its own in the cluster, its own files, the live app's owner and an active
// deployment of the live app's revision, which the running service (another node on the same
// central store) follows, so it serves the backup's rows at its own address while the live app
// keeps its own. The new id is checked like any app id, and the new app is held for inspection.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { BackupService } from '../../src/backups/backup-service.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { FileService } from '../../src/files/file-service.ts';
import { openFileStore } from '../../src/files/files-feature.ts';
import { systemCaller } from '../../src/kernel/caller.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { appFileStorage, appStateDir } from '../../src/serve/deployed-apps.ts';
import { ServeRestoredApps } from '../../src/serve/restored-apps.ts';
import type { ServeSettings } from '../../src/serve/serve-settings.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaId,
  call,
  deploy,
  eventually,
  freePort,
  HELLO_MANIFEST,
  issueAccountCredential,
  keepCredential,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  withCentral,
} from './serve-harness.ts';

const manifest = HELLO_MANIFEST;

const hello = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async ({ data }) => {
    const notes = await data.table<{ id: number; text: string }>('notes').list({ limit: 10 });
    return { notes: notes.map((note) => note.text).sort() };
  },
});
`;

const migration = `create table notes (id integer primary key, text text not null);
alter table notes enable row level security;
create policy notes_read on notes for select using (true);
insert into notes (id, text) values (1, 'first');
`;

describe('restoring a backup of a deployed app into a new app under platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let port: number;
  let base: string;

  beforeAll(async () => {
    [postgres, secrets, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-restore-to-'),
    ]);
    port = await freePort();
    base = `http://localhost:${port}`;
    const appDir = join(dir.path, 'todo');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'functions/hello/index.ts': hello,
      'migrations/001_notes.sql': migration,
    });
    service = startService(serveEnv(postgres.url, base, port, dir.path));
    service.stdout?.resume();
    service.stderr?.resume();
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
    const token = await withCentral(postgres.url, async (central) =>
      issueAccountCredential(central, await adaId(central), 'test CLI'),
    );
    expect(await keepCredential(secrets.env, dir.path, base, token)).toBe(0);
    await deploy(secrets.env, appDir, base, 'todo');
  }, 120_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  const notesAt = async (appId: string): Promise<string[] | undefined> => {
    const answer = await call(port, `${appId}.localhost:${port}`, '/api/hello');
    if (answer.status !== 200) return undefined;
    return (JSON.parse(answer.body) as { result: { notes: string[] } }).result.notes;
  };

  it('serves the backup as a new app beside the live one, which keeps its own data', async () => {
    expect(await notesAt('todo')).toEqual(['first']);
    const settings = {
      databaseUrl: postgres.url,
      filesDir: join(dir.path, 'files'),
      baseUrl: base,
    } as ServeSettings;
    const central = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', '/platform_central?'),
      2,
    );
    const live = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', '/platform_app_todo?'),
      2,
    );
    const where = (appId: string) => ({ stateDir: appStateDir(settings.filesDir, appId), appId });
    const store = openFileStore(appFileStorage(settings, 'todo'), where('todo'));
    try {
      const files = new FileService(live, store);
      const ref = (
        await files.upload(systemCaller(), {
          data: Buffer.from('at the backup'),
          name: 'a.txt',
          contentType: 'text/plain',
        })
      ).ref;
      // The service itself follows the activation (as every node does), so this node's own
      // start of the new app is the announcement's.
      const restoredApps = new ServeRestoredApps({
        settings,
        central,
        clock: systemClock,
        sync: async () => undefined,
      });
      const backups = new BackupService({
        appId: 'todo',
        db: live,
        store,
        stateDir: join(dir.path, 'backup-work'),
        platformSchema,
        clock: systemClock,
        newApps: restoredApps.hostFor('todo'),
      });
      const backup = await backups.create('manual');
      await live.query("INSERT INTO public.notes (id, text) VALUES (2, 'after')");
      await files.replace(systemCaller(), ref, { data: Buffer.from('later') });

      for (const [to, code] of [
        ['todo', 'APP_ID_TAKEN'],
        ['Todo_Copy', 'INVALID_INPUT'],
      ] as const) {
        await expect(backups.restoreTo(backup.id, to)).rejects.toMatchObject({ code });
      }

      const made = await backups.restoreTo(backup.id, 'todo-copy');
      expect(made.app).toEqual({ appId: 'todo-copy', url: `http://todo-copy.localhost:${port}` });
      expect(
        await eventually(
          async () => (await notesAt('todo-copy').catch(() => undefined)) !== undefined,
          60_000,
        ),
      ).toBe(true);
      expect(await notesAt('todo-copy')).toEqual(['first']);
      // The live app is as it was.
      expect(await notesAt('todo')).toEqual(['after', 'first']);
      expect((await files.download(systemCaller(), ref)).data.toString()).toBe('later');

      // The new app: the live app's owner, the live app's revision, its own copy of the bytes.
      const { rows } = await central.query<{ owner: string; digest: string; same: boolean }>(
        `SELECT a.owner_account_id::text AS owner, d.digest,
                d.digest = (SELECT digest FROM platform.deployments l
                             JOIN platform.active_deployments la ON la.deployment_id = l.id
                            WHERE la.app_id = 'todo') AS same
           FROM platform.apps a JOIN platform.active_deployments ad USING (app_id)
           JOIN platform.deployments d ON d.id = ad.deployment_id
          WHERE a.app_id = 'todo-copy'`,
      );
      expect(rows).toEqual([expect.objectContaining({ owner: await adaId(central), same: true })]);
      const copyStore = openFileStore(appFileStorage(settings, 'todo-copy'), where('todo-copy'));
      const copyDb = await PostgresDatabase.connect(
        postgres.url.replace('/postgres?', '/platform_app_todo_copy?'),
        1,
      );
      try {
        const copy = new FileService(copyDb, copyStore);
        expect((await copy.download(systemCaller(), ref)).data.toString()).toBe('at the backup');
        // None of the live app's keys came along: nothing the live app signed opens the copy.
        const keys = async (db: PostgresDatabase) =>
          (
            await db.query<{ pair: string }>(
              "SELECT name || ':' || secret AS pair FROM platform.auth_keys",
            )
          ).rows.map((row) => row.pair);
        const liveKeys = await keys(live);
        expect(liveKeys.length).toBeGreaterThan(0);
        expect((await keys(copyDb)).filter((pair) => liveKeys.includes(pair))).toEqual([]);
        // Held for inspection (its jobs, cron and Web Push do not run): the hold is in the copy's
        // own database, which the revision serving it reads, never in the live app's.
        const holds = async (db: PostgresDatabase) =>
          (await db.query('SELECT live_app_id, backup_id FROM platform.inspection_hold')).rows;
        expect(await holds(copyDb)).toEqual([{ live_app_id: 'todo', backup_id: backup.id }]);
        expect(await holds(live)).toEqual([]);
      } finally {
        copyStore.close();
        await copyDb.close();
      }
      // Taken now, by the new app.
      await expect(backups.restoreTo(backup.id, 'todo-copy')).rejects.toMatchObject({
        code: 'APP_ID_TAKEN',
      });
    } finally {
      store.close();
      await live.close();
      await central.close();
    }
  }, 180_000);
});
