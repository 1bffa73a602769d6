import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCentralStore } from '../../src/app/open-central.ts';
import { platformSchema } from '../../src/app/platform-schema.ts';
import type { Database } from '../../src/db/database.ts';
import { type OpenedDatabase, openDatabase } from '../../src/db/open-database.ts';
import { type PostgresServer, startPrivateCluster } from './postgres-server.ts';
import { tempDir } from './temp-dir.ts';

/**
 * `PLATFORM_DEV_DATABASE=cluster`: the databases these helpers open (an app's, the central
 * store) run on a private PostgreSQL cluster each, as `platform dev --database cluster` keeps
 * them, instead of PGlite; each cluster stops when its database is cleaned up.
 */
export const testsOnCluster = process.env.PLATFORM_DEV_DATABASE === 'cluster';

/** The cluster each app folder's database runs on, for {@link reopen}. */
const clusters = new Map<string, PostgresServer>();

/**
 * The snapshot of a fresh cluster shared by test runs, kept like any other build cache in
 * `node_modules/.cache`, so only the very first run pays for initdb.
 */
export const testSnapshotPath = fileURLToPath(
  new URL(
    '../../../../node_modules/.cache/platform-broker/pglite-cluster-1db.tar',
    import.meta.url,
  ),
);

/**
 * An app folder with the given migrations, its database opened with the whole platform schema
 * (every feature's tables), and a cleanup.
 */
export async function appWithDatabase(
  migrations: Record<string, string> = {},
  options: { inMemory?: boolean; snapshotPath?: string } = {},
): Promise<OpenedDatabase & { appDir: string; cleanup: () => Promise<void> }> {
  const dir = await tempDir('broker-app-');
  await mkdir(join(dir.path, 'migrations'), { recursive: true });
  for (const [name, sql] of Object.entries(migrations)) {
    await writeFile(join(dir.path, 'migrations', name), sql);
  }
  const cluster = testsOnCluster ? await startPrivateCluster() : undefined;
  if (cluster) clusters.set(dir.path, cluster);
  const opened = await openDatabase({
    appDir: dir.path,
    databaseUrl: cluster ? await cluster.createDatabase('platform_app_test') : '',
    snapshotPath: options.snapshotPath ?? testSnapshotPath,
    inMemory: options.inMemory ?? false,
    platformSchema,
  });
  return {
    ...opened,
    appDir: dir.path,
    cleanup: async () => {
      await opened.db.close();
      clusters.delete(dir.path);
      await cluster?.stop();
      await dir.remove();
    },
  };
}

/** Reopens the database of an existing app folder (restart). */
export function reopen(appDir: string): Promise<OpenedDatabase> {
  const cluster = clusters.get(appDir);
  const databaseUrl = cluster ? new URL(cluster.url) : undefined;
  if (databaseUrl) databaseUrl.pathname = '/platform_app_test';
  return openDatabase({
    appDir,
    databaseUrl: databaseUrl?.toString() ?? '',
    snapshotPath: testSnapshotPath,
    platformSchema,
  });
}

/**
 * Opens a real PostgreSQL (`url`, see `postgres-server.ts`) for the app folder `appDir` with the
 * whole platform schema and the app's migrations, as a broker would.
 */
export function openPostgres(url: string, appDir: string): Promise<OpenedDatabase> {
  return openDatabase({ appDir, databaseUrl: url, platformSchema });
}

export type { Database };

/** An organisation's central store in memory, at its current schema (the caller closes it). */
export async function openTestCentral(): Promise<Database> {
  if (!testsOnCluster) {
    return openCentralStore({
      dir: '.',
      inMemory: true,
      databaseUrl: '',
      snapshotPath: testSnapshotPath,
    });
  }
  const cluster = await startPrivateCluster();
  const store = await openCentralStore({ dir: '.', databaseUrl: cluster.url });
  const close = store.close.bind(store);
  // The cluster stops with its store.
  store.close = async () => {
    await close();
    await cluster.stop();
  };
  return store;
}

/**
 * A copy of the fresh-cluster test snapshot in a folder of its own, for tests that must start
 * without the prepared (schema-applied) snapshots other tests write beside the shared one.
 */
export async function privateSnapshot(): Promise<{ path: string; remove: () => Promise<void> }> {
  if (!existsSync(testSnapshotPath)) {
    // The first database opened on a machine writes the shared snapshot.
    const first = await appWithDatabase({}, { inMemory: true });
    await first.cleanup();
  }
  const dir = await tempDir('snapshot-');
  const path = join(dir.path, 'cluster.tar');
  await copyFile(testSnapshotPath, path);
  return { path, remove: dir.remove };
}
