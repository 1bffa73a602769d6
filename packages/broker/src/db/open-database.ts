import { join } from 'node:path';
import { platformCacheDir } from '../kernel/cache-dir.ts';
import type { DataDirLock } from './data-dir-lock.ts';
import type { Database } from './database.ts';
import { applyMigrations, type MigrationReport } from './migrations.ts';
import { PgliteDatabase } from './pglite-database.ts';
import {
  type PlatformSchemaReport,
  type SchemaStep,
  withPlatformSchema,
} from './platform-schema.ts';
import { PostgresDatabase } from './postgres-database.ts';
import { openPgliteWithSchema } from './schema-snapshot.ts';

/** How to reach an app's database. */
export interface OpenDatabaseOptions {
  /** The app folder; its `.platform/db` holds the embedded database. */
  readonly appDir: string;
  /** A PostgreSQL connection string; when set, PGlite is not used. @default process.env.DATABASE_URL */
  readonly databaseUrl?: string | undefined;
  /** Keep the embedded database in memory instead of `.platform/db` (tests only). */
  readonly inMemory?: boolean;
  /** Where the fresh-cluster snapshot lives. @default {@link defaultSnapshotPath} */
  readonly snapshotPath?: string | undefined;
  /** Folder of the app's SQL migrations. @default `<appDir>/migrations` */
  readonly migrationsDir?: string;
  /**
   * The broker's own schema, every feature's steps in order (`app/platform-schema.ts`), brought
   * up to date before the app's migrations.
   */
  readonly platformSchema: readonly SchemaStep[];
  /**
   * Told when a new embedded database must be prepared from nothing on this machine (no
   * prepared snapshot in the cache or the package): the seconds that follow happen once.
   */
  readonly onPreparing?: (() => void) | undefined;
}

/** An open, bootstrapped and migrated database. */
export interface OpenedDatabase {
  readonly db: Database;
  /** The platform schema's version before and after, and the steps applied now. */
  readonly platformSchema: PlatformSchemaReport;
  readonly migrations: MigrationReport;
  /**
   * The lock on the embedded database's data directory, released by `db.close()`; a broker
   * {@link DataDirLock.announce}s its URL in it. None for PostgreSQL or in memory.
   */
  readonly lock: DataDirLock | undefined;
  /** Milliseconds from the call to a database ready for queries. */
  readonly milliseconds: number;
}

/** The shared snapshot of a fresh PGlite cluster, in {@link platformCacheDir}. */
export function defaultSnapshotPath(env: NodeJS.ProcessEnv = process.env): string {
  // `-1db`: a cluster without the template databases (see the PGlite worker); snapshots made
  // with them, by earlier brokers, keep their own name and are left to those brokers.
  return join(platformCacheDir(env), 'pglite-0.5.14-cluster-1db.tar');
}

/**
 * Opens the app's database (a real PostgreSQL when `databaseUrl` is set, otherwise PGlite in
 * `<appDir>/.platform/db`, locked against a second broker: `DataDirLockedError`), brings the platform schema up to date and applies the app's
 * migrations. A failing platform step or a database written by a newer broker throws
 * `PlatformSchemaError`; a failing app migration throws `MigrationError`. The database is closed
 * again when anything fails.
 *
 * @example
 * ```ts
 * const { db } = await openDatabase({ appDir: 'examples/todos', platformSchema });
 * ```
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  const started = performance.now();
  const url = options.databaseUrl === undefined ? process.env.DATABASE_URL : options.databaseUrl;
  const { db, platformSchema } = url
    ? await withPlatformSchema(await PostgresDatabase.connect(url), options.platformSchema)
    : await openPgliteWithSchema(
        {
          dataDir: options.inMemory ? undefined : join(options.appDir, '.platform', 'db'),
          snapshotPath: options.snapshotPath ?? defaultSnapshotPath(),
          onPreparing: options.onPreparing,
        },
        options.platformSchema,
      );
  try {
    const migrations = await applyMigrations(
      db,
      options.migrationsDir ?? join(options.appDir, 'migrations'),
    );
    return {
      db,
      lock: db instanceof PgliteDatabase ? db.lock : undefined,
      platformSchema,
      migrations,
      milliseconds: Math.round(performance.now() - started),
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
