import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCentralStore } from '../../src/app/open-central.ts';
import { platformSchema } from '../../src/app/platform-schema.ts';
import type { Database } from '../../src/db/database.ts';
import { type OpenedDatabase, openDatabase } from '../../src/db/open-database.ts';
import { tempDir } from './temp-dir.ts';

/**
 * The snapshot of a fresh cluster shared by test runs, kept like any other build cache in
 * `node_modules/.cache`, so only the very first run pays for initdb.
 */
export const testSnapshotPath = fileURLToPath(
  new URL('../../../../node_modules/.cache/platform-broker/pglite-cluster.tar', import.meta.url),
);

/**
 * An app folder with the given migrations, its database opened with the whole platform schema
 * (every feature's tables), and a cleanup.
 */
export async function appWithDatabase(
  migrations: Record<string, string> = {},
  options: { inMemory?: boolean } = {},
): Promise<OpenedDatabase & { appDir: string; cleanup: () => Promise<void> }> {
  const dir = await tempDir('broker-app-');
  await mkdir(join(dir.path, 'migrations'), { recursive: true });
  for (const [name, sql] of Object.entries(migrations)) {
    await writeFile(join(dir.path, 'migrations', name), sql);
  }
  const opened = await openDatabase({
    appDir: dir.path,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    inMemory: options.inMemory ?? false,
    platformSchema,
  });
  return {
    ...opened,
    appDir: dir.path,
    cleanup: async () => {
      await opened.db.close();
      await dir.remove();
    },
  };
}

/** Reopens the database of an existing app folder (restart). */
export function reopen(appDir: string): Promise<OpenedDatabase> {
  return openDatabase({ appDir, databaseUrl: '', snapshotPath: testSnapshotPath, platformSchema });
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
export function openTestCentral(): Promise<Database> {
  return openCentralStore({
    dir: '.',
    inMemory: true,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
  });
}
