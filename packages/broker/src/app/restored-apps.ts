import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  appIdTaken,
  checkNewAppId,
  type NewAppHost,
  type NewAppParts,
  type RestoredApp,
} from '../backups/new-app-host.ts';
import type { Database } from '../db/database.ts';
import {
  appDatabaseName,
  checkDatabaseName,
  databaseExists,
  databaseUrl,
  dropDatabase,
  withServer,
} from '../db/database-per-app.ts';
import { applyMigrations } from '../db/migrations.ts';
import type { OpenedDatabase } from '../db/open-database.ts';
import { PgliteDatabase } from '../db/pglite-database.ts';
import { FolderFileStore } from '../files/folder-store.ts';
import { APP_ID_PATTERN } from '../project/app-id.ts';
import { stateDirOf } from './state-dir.ts';

/** The folder, in the app's `.platform`, of the apps restored beside it: one folder each. */
const RESTORED_FOLDER = 'restored';

/** A restored app's own state folder: `<app>/.platform/restored/<id>`. */
const restoredStateDir = (appDir: string, appId: string): string =>
  join(stateDirOf(appDir), RESTORED_FOLDER, appId);

/** A restored app running beside the live one. */
export interface RunningRestoredApp {
  readonly url: string;
  close(): Promise<void>;
}

/** What `platform dev` gives the restored apps of one app. */
export interface DevRestoredAppsOptions {
  /** The live app's folder: the restored app serves its code, Functions and `public/`. */
  readonly appDir: string;
  /** The app ids of the organisation (the live app's among them), which a new app may not take. */
  readonly taken: () => readonly string[];
  /** The PostgreSQL URL of the live app's database; none for PGlite. */
  readonly databaseUrl: string | undefined;
  /** The live app's database is in memory (tests): so is the copy. */
  readonly inMemory: boolean;
  /**
   * Starts a broker for app `appId` with the state folder `stateDir` on the restored database
   * `database`, on a port of its own at `http://<appId>.localhost:<port>`.
   */
  readonly launch: (
    appId: string,
    stateDir: string,
    database: OpenedDatabase,
  ) => Promise<RunningRestoredApp>;
}

/**
 * The apps `platform dev` restores backups into beside its app (docs/backups.md): each runs the
 * live app's code and platform.yaml with its own id, database (PGlite in
 * `.platform/restored/<id>/db`, or `platform_app_<id>` on the app's PostgreSQL server), files,
 * secrets (a copy of the live app's) and port, at `http://<id>.localhost:<port>`, and takes
 * writes without touching the live app. It lasts while this `platform dev` runs: the next start
 * removes it ({@link removeRestoredApps}).
 */
export class DevRestoredApps implements NewAppHost {
  readonly #o: DevRestoredAppsOptions;
  readonly #running = new Map<string, RunningRestoredApp>();
  /** Ids being restored now: a second restore into the same id is refused while one runs. */
  readonly #pending = new Set<string>();

  constructor(options: DevRestoredAppsOptions) {
    this.#o = options;
  }

  /** The restored apps serving now, by id. */
  get apps(): ReadonlyMap<string, RunningRestoredApp> {
    return this.#running;
  }

  async check(appId: string): Promise<void> {
    checkNewAppId(appId);
    if (this.#o.taken().includes(appId) || this.#running.has(appId) || this.#pending.has(appId)) {
      throw appIdTaken(appId);
    }
    const url = this.#o.databaseUrl;
    // A database of that name on the server that is not a leftover of this app's: another app's.
    if (url !== undefined && (await databaseExists(maintenance(url), appDatabaseName(appId)))) {
      const ours = await readdir(join(stateDirOf(this.#o.appDir), RESTORED_FOLDER)).catch(
        () => [] as string[],
      );
      if (!ours.includes(appId)) throw appIdTaken(appId);
    }
  }

  async prepare(appId: string): Promise<NewAppParts> {
    this.#pending.add(appId);
    const stateDir = restoredStateDir(this.#o.appDir, appId);
    await rm(stateDir, { recursive: true, force: true });
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    // The Functions read the same secrets as in the live app (both are the developer's).
    await copyFile(
      join(stateDirOf(this.#o.appDir), 'secrets.json'),
      join(stateDir, 'secrets.json'),
    ).catch(() => undefined);
    const store = new FolderFileStore(join(stateDir, 'files'));
    if (this.#o.databaseUrl !== undefined) {
      const url = await freshDatabase(this.#o.databaseUrl, appDatabaseName(appId));
      return { database: { kind: 'postgres', url }, store };
    }
    return {
      database: { kind: 'pglite', dataDir: this.#o.inMemory ? undefined : join(stateDir, 'db') },
      store,
    };
  }

  async start(appId: string, db: Database): Promise<RestoredApp> {
    try {
      // The live app's migrations the backup predates, so the copy fits the code it runs.
      const migrations = await applyMigrations(db, join(this.#o.appDir, 'migrations')).catch(
        async (error: unknown) => {
          await db.close();
          throw error;
        },
      );
      // The broker owns the database from here, and closes it also when its start fails.
      const running = await this.#o.launch(appId, restoredStateDir(this.#o.appDir, appId), {
        db,
        migrations,
        platformSchema: { from: 0, to: 0, applied: [] },
        lock: db instanceof PgliteDatabase ? db.lock : undefined,
        milliseconds: 0,
      });
      this.#running.set(appId, running);
      return { appId, url: running.url };
    } finally {
      this.#pending.delete(appId);
    }
  }

  async discard(appId: string): Promise<void> {
    this.#pending.delete(appId);
    if (this.#o.databaseUrl !== undefined) {
      await dropDatabase(maintenance(this.#o.databaseUrl), appDatabaseName(appId));
    }
    await rm(restoredStateDir(this.#o.appDir, appId), { recursive: true, force: true });
  }

  /** Stops every restored app (their folders stay until the next start). */
  async close(): Promise<void> {
    const running = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(running.map((app) => app.close()));
  }
}

/**
 * Removes the apps an earlier `platform dev` of `appDir` restored beside it: their folders and,
 * on a PostgreSQL server (`databaseUrl`), their databases, but never the database of an app id
 * in `taken` (an app of the workspace that took the id since has that database now).
 */
export async function removeRestoredApps(
  appDir: string,
  databaseUrl: string | undefined,
  taken: readonly string[],
): Promise<void> {
  const dir = join(stateDirOf(appDir), RESTORED_FOLDER);
  const ids = await readdir(dir).catch(() => [] as string[]);
  if (databaseUrl !== undefined) {
    for (const id of ids) {
      if (taken.includes(id) || !APP_ID_PATTERN.test(id)) continue;
      await dropDatabase(maintenance(databaseUrl), appDatabaseName(id)).catch(() => undefined);
    }
  }
  await rm(dir, { recursive: true, force: true });
}

/**
 * The server's own database on `url`'s server: an app's database may be the one being dropped
 * or made, so the work connects beside it.
 */
const maintenance = (url: string): string => databaseUrl(url, 'postgres');

/** An empty database `name` on `url`'s server (a leftover of that name dropped first). */
async function freshDatabase(url: string, name: string): Promise<string> {
  checkDatabaseName(name);
  await withServer(maintenance(url), async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  });
  return databaseUrl(url, name);
}
