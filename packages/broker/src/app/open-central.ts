import { join } from 'node:path';
import type { Database } from '../db/database.ts';
import { ensureDatabase } from '../db/database-per-app.ts';
import { defaultSnapshotPath } from '../db/open-database.ts';
import { withPlatformSchema } from '../db/platform-schema.ts';
import { PostgresDatabase } from '../db/postgres-database.ts';
import { openPgliteWithSchema } from '../db/schema-snapshot.ts';
import { centralSchema } from './central-schema.ts';
import { ensureStateDir } from './state-dir.ts';

/** The central store's database on a shared PostgreSQL server. */
export const CENTRAL_DATABASE = 'platform_central';

/**
 * The central store's buffer cache, a quarter of an app database's: it holds accounts, the
 * organisation and its integrations, whose rows fit in a few MB, and PGlite keeps the whole cache
 * resident from the start.
 */
const CENTRAL_BUFFER_CACHE_MB = 8;

/** Where the organisation's central store lives. */
export interface CentralStoreOptions {
  /** The workspace folder: PGlite keeps the store in `<dir>/.platform/central`. */
  readonly dir: string;
  /** A PostgreSQL server: the store is its database `platform_central`. @default process.env.DATABASE_URL */
  readonly databaseUrl?: string | undefined;
  /** Keep PGlite in memory (tests only). */
  readonly inMemory?: boolean;
  /** Snapshot of a fresh cluster, to skip initdb. */
  readonly snapshotPath?: string | undefined;
  /** Told when the embedded store must be prepared from nothing on this machine (once). */
  readonly onPreparing?: (() => void) | undefined;
}

/**
 * Opens the organisation's central store (docs/organisations.md): a database of its own, never
 * an app's, holding accounts, password verifiers and email links, brought up to date with its
 * own schema steps ({@link centralSchema}). The caller closes it.
 *
 * @example
 * ```ts
 * const central = await openCentralStore({ dir: workspaceDir });
 * const dev = await startDev({ appDir, central });
 * ```
 */
export async function openCentralStore(options: CentralStoreOptions): Promise<Database> {
  const url = options.databaseUrl === undefined ? process.env.DATABASE_URL : options.databaseUrl;
  if (url) {
    const db = await PostgresDatabase.connect(await ensureDatabase(url, CENTRAL_DATABASE));
    return (await withPlatformSchema(db, centralSchema)).db;
  }
  let dataDir: string | undefined;
  if (!options.inMemory) {
    dataDir = join(await ensureStateDir(options.dir), 'central');
  }
  const { db } = await openPgliteWithSchema(
    {
      dataDir,
      snapshotPath: options.snapshotPath ?? defaultSnapshotPath(),
      vector: false,
      bufferCacheMb: CENTRAL_BUFFER_CACHE_MB,
      onPreparing: options.onPreparing,
    },
    centralSchema,
  );
  return db;
}
