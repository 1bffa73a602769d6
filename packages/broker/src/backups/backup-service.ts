import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Database, Queryable } from '../db/database.ts';
import { databaseUrl } from '../db/database-per-app.ts';
import { PgliteDatabase, replacedDataDir } from '../db/pglite-database.ts';
import { type SchemaStep, withPlatformSchema } from '../db/platform-schema.ts';
import { PostgresDatabase } from '../db/postgres-database.ts';
import { type FileGeneration, holdGenerations, releaseHolds } from '../files/file-holds.ts';
import type { FileStore } from '../files/file-store.ts';
import type { Clock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import {
  BackupCatalog,
  type BackupInfo,
  type BackupKind,
  type BackupRecord,
  generationsOf,
  toInfo,
} from './backup-catalog.ts';
import { InspectionHold } from './inspection-hold.ts';
import type { NewAppHost, NewAppParts, RestoredApp } from './new-app-host.ts';
import { runPostgresTool } from './pg-tools.ts';
import { defaultRetention, type Retention, retained } from './retention.ts';

/** What a {@link BackupService} works with. */
export interface BackupServiceOptions {
  readonly appId: string;
  readonly db: Database;
  /** The store of the app's files, which also keeps the backups. */
  readonly store: FileStore;
  /** The app's `.platform` folder, for archives on their way in and out. */
  readonly stateDir: string;
  /** The broker's platform schema, run on a restored database taken under an older one. */
  readonly platformSchema: readonly SchemaStep[];
  readonly clock: Clock;
  readonly retention?: Retention | undefined;
  /**
   * Makes the new app a backup is restored into beside the live one (`restoreTo`).
   * @default none: such a restore answers `FEATURE_NOT_AVAILABLE`
   */
  readonly newApps?: NewAppHost | undefined;
}

/**
 * What a copy restored beside the live app starts without: the live app's sign-in sessions, its
 * keys (signing cookies and access tokens), its app access tokens and their requests, the
 * browsers subscribed to the live app's Web Push (the copy must not notify them), and the holds
 * of the live app's backups.
 */
const NEW_APP_CLEARED = [
  'sessions',
  'auth_keys',
  'app_token_requests',
  'app_tokens',
  'push_subscriptions',
  'file_holds',
] as const;

/** A concurrent removal won against a backup's hold this many times in a row: give up. */
const HOLD_ATTEMPTS = 3;

/**
 * An app's backups (docs/backups.md): a consistent snapshot of its database (PostgreSQL: a
 * `pg_dump` custom-format archive; PGlite: its `dumpDataDir` tarball) and the file generations
 * its rows reference, kept in the files' store; restored into a new database that then replaces
 * the app's in one step.
 *
 * @example
 * ```ts
 * const backups = new BackupService({ appId, db, store: files.store, stateDir, platformSchema, clock });
 * const { id } = await backups.create('manual');
 * await backups.restore(id);
 * ```
 */
export class BackupService {
  readonly catalog: BackupCatalog;
  readonly #o: BackupServiceOptions;
  #restoring = false;
  /** One backup or restore at a time (a restore must not race a backup of what it replaces). */
  #busy: Promise<unknown> = Promise.resolve();

  constructor(options: BackupServiceOptions) {
    this.#o = options;
    this.catalog = new BackupCatalog(options.store);
  }

  /** True while a restore replaces the database: the app answers `APP_RESTORING`. */
  get restoring(): boolean {
    return this.#restoring;
  }

  /** Every backup, newest first. */
  async list(): Promise<BackupInfo[]> {
    return (await this.catalog.list()).map(toInfo);
  }

  /**
   * Takes a backup now and resolves to it once it is recorded, then applies the retention.
   * After the owner's account was deleted no backup is taken (`FEATURE_NOT_AVAILABLE` would be
   * wrong: the app is gone, so `APP_DELETED`).
   */
  create(kind: BackupKind): Promise<BackupInfo> {
    return this.#one(async () => {
      if (await this.catalog.erasure()) {
        throw new PlatformError({
          code: 'APP_DELETED',
          message: "The app was deleted with its owner's account; it takes no more backups.",
        });
      }
      const record = await this.#take(kind);
      await this.#prune();
      return toInfo(record);
    });
  }

  /**
   * Restores backup `id`: its archive becomes a new database, brought up to the platform schema,
   * which then replaces the app's in one step. Meanwhile the app answers `APP_RESTORING` and the
   * database's other callers wait. A failure before the replacement leaves the app's database as
   * it was.
   */
  restore(id: string): Promise<BackupInfo> {
    return this.#one(async () => {
      const record = await this.#restorable(id);
      const archive = await this.#download(record);
      try {
        const db = this.#o.db;
        if (db instanceof PgliteDatabase) await this.#restorePglite(db, archive);
        else if (db instanceof PostgresDatabase) await this.#restorePostgres(db, archive, id);
        else throw new TypeError('A restore needs a PGlite or PostgreSQL database.');
        await this.#syncHolds();
        return toInfo(record);
      } finally {
        this.#restoring = false;
        await rm(archive, { force: true });
      }
    });
  }

  /**
   * Restores backup `id` into a new app `appId` beside the live one, to inspect it
   * (docs/backups.md): the host checks the id (`INVALID_INPUT`, `APP_ID_TAKEN`) and makes the
   * new app's empty database and file store; the archive fills the database, which is brought
   * up to the platform schema and keeps none of the live app's sessions, tokens, keys, push
   * subscriptions or holds; the generations the backup references are copied; then the host
   * starts the new app. The live app is not touched, and a failure removes what was made for
   * the new one.
   */
  restoreTo(id: string, appId: string): Promise<{ backup: BackupInfo; app: RestoredApp }> {
    return this.#one(async () => {
      const host = this.#o.newApps;
      if (host === undefined) {
        throw new PlatformError({
          code: 'FEATURE_NOT_AVAILABLE',
          message:
            "Restoring a backup into a new app is not available here; restore replaces the app's database.",
        });
      }
      await host.check(appId);
      const record = await this.#restorable(id);
      const archive = await this.#download(record);
      let made = false;
      try {
        const parts = await host.prepare(appId);
        made = true;
        try {
          await this.#copyFiles(record, parts.store);
        } finally {
          parts.store.close();
        }
        const db = await this.#restoreNew(parts.database, archive, record.id, appId);
        const app = await host.start(appId, db);
        return { backup: toInfo(record), app };
      } catch (error) {
        if (made) await host.discard(appId).catch(() => undefined);
        throw error;
      } finally {
        await rm(archive, { force: true });
      }
    });
  }

  /** The record of backup `id`, refused when its archive is of the other engine. */
  async #restorable(id: string): Promise<BackupRecord> {
    const record = await this.catalog.get(id);
    if (record.engine !== this.#o.db.kind) {
      throw new PlatformError({
        code: 'FEATURE_NOT_AVAILABLE',
        message: `Backup ${id} was taken from ${record.engine === 'pglite' ? 'the embedded database' : 'PostgreSQL'}; restoring it into ${this.#o.db.kind === 'pglite' ? 'the embedded database' : 'PostgreSQL'} is not available.`,
      });
    }
    return record;
  }

  /** The archive of `record` in a local work file, unpacked as the engine reads it. */
  async #download(record: BackupRecord): Promise<string> {
    const archive = join(await this.#workDir(), `${record.id}.restore`);
    const body = await this.catalog.archive(record.id);
    if (body === undefined) {
      throw new PlatformError({
        code: 'BACKUP_NOT_FOUND',
        message: `The archive of backup ${record.id} is missing from the store.`,
        details: { id: record.id },
      });
    }
    try {
      const out = createWriteStream(archive, { mode: 0o600 });
      if (record.engine === 'pglite') await pipeline(body, createGunzip(), out);
      else await pipeline(body, out);
    } catch (error) {
      await rm(archive, { force: true });
      throw error;
    }
    return archive;
  }

  /** Copies the file generations `record` references into `store` (the holds keep them). */
  async #copyFiles(record: BackupRecord, store: FileStore): Promise<void> {
    for (const { fileId, generation } of generationsOf(record)) {
      const body = await this.#o.store.get(fileId, generation);
      if (body === undefined) {
        throw new PlatformError({
          code: 'STORAGE_UNAVAILABLE',
          message: `A file backup ${record.id} references is missing from the store; nothing was restored.`,
          details: { reason: 'generation-missing', id: record.id },
        });
      }
      await store.put(fileId, generation, body);
    }
  }

  /**
   * The archive restored into the new app's empty database, brought up to the platform schema,
   * without what belongs to the live app alone ({@link NEW_APP_CLEARED}), its jobs and cron
   * state moved to `appId`, and held for inspection ({@link InspectionHold}): its background
   * work does not run.
   */
  async #restoreNew(
    target: NewAppParts['database'],
    archive: string,
    backupId: string,
    appId: string,
  ): Promise<Database> {
    let db: Database;
    if (target.kind === 'pglite') {
      db = await PgliteDatabase.open({ dataDir: target.dataDir, snapshotPath: archive });
    } else {
      await runPostgresTool('pg_restore', target.url, [
        '--exit-on-error',
        '--single-transaction',
        `--dbname=${new URL(target.url).pathname.replace(/^\//, '')}`,
        archive,
      ]);
      db = await PostgresDatabase.connect(target.url);
    }
    await withPlatformSchema(db, this.#o.platformSchema);
    try {
      await db.transaction(async (tx) => {
        for (const table of NEW_APP_CLEARED) await tx.query(`DELETE FROM platform.${table}`);
        // The jobs and cron state of the backup, under the new app's id: the copy's jobs API
        // shows what was queued, which its hold keeps from running.
        for (const table of ['jobs', 'cron_state']) {
          await tx.query(`UPDATE platform.${table} SET app_id = $1 WHERE app_id = $2`, [
            appId,
            this.#o.appId,
          ]);
        }
        // In the same transaction: the copy never starts without its hold.
        await InspectionHold.place(tx, {
          liveAppId: this.#o.appId,
          backupId,
          at: this.#o.clock.now(),
        });
      });
    } catch (error) {
      await db.close();
      throw error;
    }
    return db;
  }

  /**
   * Takes a scheduled backup when the newest one is older than the app's interval, and applies
   * the retention: what the broker's timer runs.
   */
  tick(): Promise<void> {
    return this.#one(async () => {
      const erasure = await this.catalog.erasure();
      if (erasure === undefined) {
        const interval =
          ((await this.catalog.settings())?.intervalSeconds ?? limits.backups.intervalSeconds) *
          1000;
        const newest = (await this.catalog.list()).find((b) => b.kind === 'scheduled');
        const now = this.#o.clock.now().getTime();
        if (newest === undefined || now - Date.parse(newest.createdAt) >= interval) {
          await this.#take('scheduled');
        }
      }
      await this.#prune();
    });
  }

  /** Sets how often scheduled backups are taken (`INVALID_INPUT` below the minimum). */
  async setInterval(intervalSeconds: number): Promise<void> {
    if (!Number.isInteger(intervalSeconds) || intervalSeconds < limits.backups.intervalMinSeconds) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `The backup interval is a whole number of seconds from ${limits.backups.intervalMinSeconds}.`,
        details: { field: 'intervalSeconds' },
      });
    }
    await this.catalog.putSettings({ intervalSeconds });
  }

  /**
   * The owner's account was deleted (spec 3.5): no more backups, and every backup is erased
   * once its retention ends, at the latest `limits.backups.erasureMaxSeconds` from now.
   */
  async eraseLater(): Promise<void> {
    if (await this.catalog.erasure()) return;
    const eraseBy = new Date(
      this.#o.clock.now().getTime() + limits.backups.erasureMaxSeconds * 1000,
    );
    await this.catalog.putErasure({ eraseBy: eraseBy.toISOString() });
  }

  /** Removes backup `id` now and frees the bytes only it held (`BACKUP_NOT_FOUND` if none). */
  remove(id: string): Promise<void> {
    return this.#one(async () => {
      await this.catalog.get(id);
      await this.catalog.remove(id);
      await releaseHolds(this.#o.db, this.#o.store, id);
    });
  }

  /** Removes the backups the retention no longer keeps and frees the bytes only they held. */
  prune(): Promise<number> {
    return this.#one(() => this.#prune());
  }

  async #prune(): Promise<number> {
    const records = await this.catalog.list();
    const erasure = await this.catalog.erasure();
    const keep = retained(
      records,
      this.#o.clock.now(),
      this.#o.retention ?? defaultRetention,
      erasure ? new Date(erasure.eraseBy) : undefined,
    );
    let removed = 0;
    for (const record of records) {
      if (keep.has(record.id)) continue;
      await this.catalog.remove(record.id);
      await releaseHolds(this.#o.db, this.#o.store, record.id);
      removed++;
    }
    // Backups a crash stopped before their record: their archive and holds go.
    for (const id of await this.catalog.unfinished()) {
      await this.catalog.remove(id);
      await releaseHolds(this.#o.db, this.#o.store, id);
    }
    return removed;
  }

  /** Runs `fn` after every backup or restore before it. */
  #one<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#busy.then(fn, fn);
    this.#busy = run.catch(() => undefined);
    return run;
  }

  async #workDir(): Promise<string> {
    const dir = join(this.#o.stateDir, 'backups');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /**
   * Takes one backup: the snapshot and the file generations its rows reference, read in the same
   * snapshot; the holds on those generations; the archive into the store; the record last.
   */
  async #take(kind: BackupKind): Promise<BackupRecord> {
    for (let attempt = 1; ; attempt++) {
      const id = newId('backup');
      const file = join(await this.#workDir(), `${id}.archive`);
      try {
        const snapshot = await this.#snapshot(id, file);
        const missing = await holdGenerations(this.#o.db, this.#o.store, id, snapshot.files);
        if (missing.length > 0) {
          // A file removed between the snapshot and the hold lost its bytes: take it again.
          await releaseHolds(this.#o.db, this.#o.store, id);
          if (attempt < HOLD_ATTEMPTS) continue;
          throw new PlatformError({
            code: 'STORAGE_UNAVAILABLE',
            message: 'Files kept being removed while the backup was taken; try again.',
            details: { reason: 'files-removed' },
          });
        }
        // PGlite's tarball is the whole cluster, uncompressed: gzip makes it about a tenth.
        // pg_dump's custom format is compressed already.
        let stored = file;
        if (this.#o.db.kind === 'pglite') {
          stored = `${file}.gz`;
          await pipeline(createReadStream(file), createGzip(), createWriteStream(stored));
        }
        const { size } = await stat(stored);
        await this.catalog.putArchive(id, createReadStream(stored));
        const record: BackupRecord = {
          id,
          appId: this.#o.appId,
          kind,
          engine: this.#o.db.kind,
          createdAt: snapshot.at.toISOString(),
          size,
          platformSchemaVersion: snapshot.version,
          files: snapshot.files.map((g) => [g.fileId, g.generation] as const),
        };
        await this.catalog.putRecord(record);
        return record;
      } catch (error) {
        await releaseHolds(this.#o.db, this.#o.store, id).catch(() => undefined);
        await this.#o.store.removeFile(id).catch(() => undefined);
        throw error;
      } finally {
        await rm(file, { force: true });
        await rm(`${file}.gz`, { force: true });
      }
    }
  }

  /** Writes the database's archive to `file` and reads, in the same snapshot, what it holds. */
  async #snapshot(
    id: string,
    file: string,
  ): Promise<{ files: FileGeneration[]; version: number; at: Date }> {
    const db = this.#o.db;
    const at = this.#o.clock.now();
    if (db instanceof PgliteDatabase) {
      // One turn of the queue: nothing runs between reading the rows and the snapshot, and the
      // holds taken in it keep the bytes of every generation the snapshot names.
      const read = await db.snapshotAfter(file, async (session) => {
        const state = await readState(session);
        await session.query(
          `INSERT INTO platform.file_holds (holder, file_id, generation)
           SELECT $1, id, generation FROM platform.files ON CONFLICT DO NOTHING`,
          [id],
        );
        return state;
      });
      return { ...read, at };
    }
    if (db instanceof PostgresDatabase) {
      return db.session(async (session) => {
        // pg_dump joins this transaction's snapshot, so its archive and the rows read here are
        // one state of the database, whatever commits meanwhile.
        await session.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        try {
          const { rows } = await session.query<{ snapshot: string }>(
            'SELECT pg_export_snapshot() AS snapshot',
          );
          const state = await readState(session);
          await runPostgresTool('pg_dump', db.connectionString, [
            '--format=custom',
            `--snapshot=${rows[0]?.snapshot ?? ''}`,
            `--file=${file}`,
          ]);
          return { ...state, at };
        } finally {
          await session.exec('COMMIT');
        }
      });
    }
    throw new TypeError('A backup needs a PGlite or PostgreSQL database.');
  }

  async #restorePglite(db: PgliteDatabase, archive: string): Promise<void> {
    const dir = db.dataDir;
    if (dir === undefined) {
      this.#restoring = true;
      await db.replace(async () => undefined, archive);
      await withPlatformSchema(db, this.#o.platformSchema);
      return;
    }
    // The restored database is made whole beside the live one, platform schema included; only
    // then does it take the live one's place.
    const restored = `${dir}.restored`;
    await rm(restored, { recursive: true, force: true });
    const fresh = await PgliteDatabase.open({ dataDir: restored, snapshotPath: archive });
    try {
      await withPlatformSchema(fresh, this.#o.platformSchema);
    } finally {
      await fresh.close();
    }
    this.#restoring = true;
    await db.replace(async () => {
      // A crash between the renames is finished or undone when the database next opens
      // (`finishReplacement`): the old directory comes back unless the new one is in place.
      const replaced = replacedDataDir(dir);
      await rm(replaced, { recursive: true, force: true });
      await rename(dir, replaced);
      await rename(restored, dir);
      await rm(replaced, { recursive: true, force: true });
    });
  }

  async #restorePostgres(db: PostgresDatabase, archive: string, id: string): Promise<void> {
    const live = new URL(db.connectionString);
    const name = decodeURIComponent(live.pathname.replace(/^\//, ''));
    const suffix = id.slice(-8);
    const restoredName = `${name.slice(0, 50)}_r${suffix}`;
    const oldName = `${name.slice(0, 50)}_o${suffix}`;
    const urlOf = (database: string) => databaseUrl(db.connectionString, database);
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: urlOf('postgres') });
    await admin.connect();
    try {
      const ident = (n: string) => `"${n.replaceAll('"', '""')}"`;
      await admin.query(`DROP DATABASE IF EXISTS ${ident(restoredName)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${ident(restoredName)} TEMPLATE template0`);
      try {
        await runPostgresTool('pg_restore', urlOf(restoredName), [
          '--exit-on-error',
          '--single-transaction',
          `--dbname=${restoredName}`,
          archive,
        ]);
        const fresh = await PostgresDatabase.connect(urlOf(restoredName), 2);
        try {
          await withPlatformSchema(fresh, this.#o.platformSchema);
        } finally {
          await fresh.close();
        }
      } catch (error) {
        await admin.query(`DROP DATABASE IF EXISTS ${ident(restoredName)} WITH (FORCE)`);
        throw error;
      }
      this.#restoring = true;
      await db.replace(async () => {
        // Other sessions on either database (another broker, a console) would block the
        // renames; both renames commit together, so a crash leaves the old database in place.
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = ANY($1) AND pid <> pg_backend_pid()`,
          [[name, restoredName]],
        );
        await admin.query('BEGIN');
        try {
          await admin.query(`ALTER DATABASE ${ident(name)} RENAME TO ${ident(oldName)}`);
          await admin.query(`ALTER DATABASE ${ident(restoredName)} RENAME TO ${ident(name)}`);
          await admin.query('COMMIT');
        } catch (error) {
          await admin.query('ROLLBACK');
          throw error;
        }
      });
      await admin.query(`DROP DATABASE IF EXISTS ${ident(oldName)} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }

  /**
   * Makes the file holds those of the recorded backups: a restored database holds the holds of
   * its own moment, which miss the backups taken later and name those since removed.
   */
  async #syncHolds(): Promise<void> {
    const records = await this.catalog.list();
    await this.#o.db.transaction(async (tx) => {
      await tx.query('DELETE FROM platform.file_holds');
      for (const record of records) {
        const generations = generationsOf(record);
        if (generations.length === 0) continue;
        await tx.query(
          `INSERT INTO platform.file_holds (holder, file_id, generation)
           SELECT $1, file_id, generation FROM unnest($2::text[], $3::int[]) AS g(file_id, generation)
           ON CONFLICT DO NOTHING`,
          [record.id, generations.map((g) => g.fileId), generations.map((g) => g.generation)],
        );
      }
    });
  }
}

/** The file generations the rows reference and the platform schema's version. */
async function readState(q: Queryable): Promise<{ files: FileGeneration[]; version: number }> {
  const { rows } = await q.query<{ id: string; generation: number }>(
    'SELECT id, generation FROM platform.files ORDER BY id',
  );
  const { rows: versions } = await q.query<{ version: number | null }>(
    'SELECT max(version)::int AS version FROM platform.schema_versions',
  );
  return {
    files: rows.map((row) => ({ fileId: row.id, generation: row.generation })),
    version: versions[0]?.version ?? 0,
  };
}

/**
 * Takes a `deployment` backup of the app's database `db` when `migrations` holds one that it has
 * not applied yet, before a deployment applies them (docs/backups.md); nothing for a database
 * that never ran a migration (a first deployment has nothing to keep). Resolves to the backup,
 * if one was taken.
 */
export async function backupBeforeMigrations(
  options: BackupServiceOptions,
  migrations: readonly { readonly name: string }[],
): Promise<BackupInfo | undefined> {
  const { rows } = await options.db.query<{ name: string }>('SELECT name FROM platform.migrations');
  if (rows.length === 0) return undefined;
  const applied = new Set(rows.map((row) => row.name));
  if (migrations.every((m) => applied.has(m.name))) return undefined;
  return new BackupService(options).create('deployment');
}
