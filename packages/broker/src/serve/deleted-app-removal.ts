import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/database.ts';
import { appDatabaseName, checkDatabaseName, withServer } from '../db/database-per-app.ts';
import type { ServiceLogger } from '../observability/logger.ts';
import { appStateDir } from './deployed-apps.ts';
import { DEPLOYMENTS_FOLDER } from './revision-folders.ts';
import type { ServeSettings } from './serve-settings.ts';

/**
 * Removes what the service still holds of its deleted apps (spec 3.5): for each app recorded in
 * `platform.deleted_apps` that was not deployed anew, its database (connections ended), its
 * revisions and its state folder. Run at start, before the service listens, so no request or
 * deployment of the app is under way. Its files and backups, in the files folder or the bucket,
 * are the deleted apps' sweeper's (`deleted-app-sweeper.ts`): the backups stay for their retention (docs/backups.md).
 * Answers the apps it removed.
 */
export async function removeDeletedApps(options: {
  readonly settings: ServeSettings;
  readonly central: Database;
  readonly logger: ServiceLogger;
}): Promise<string[]> {
  const { settings, central, logger } = options;
  const { rows } = await central.query<{ app_id: string }>(
    `SELECT d.app_id FROM platform.deleted_apps d
      WHERE NOT EXISTS (SELECT 1 FROM platform.apps a WHERE a.app_id = d.app_id)
      ORDER BY d.app_id`,
  );
  if (rows.length === 0) return [];
  const removed: string[] = [];
  await withServer(settings.databaseUrl, async (client) => {
    for (const { app_id: appId } of rows) {
      await client.query(
        `DROP DATABASE IF EXISTS ${checkDatabaseName(appDatabaseName(appId))} WITH (FORCE)`,
      );
      await rm(join(settings.filesDir, DEPLOYMENTS_FOLDER, appId), {
        recursive: true,
        force: true,
      });
      await rm(appStateDir(settings.filesDir, appId), { recursive: true, force: true });
      removed.push(appId);
      logger.info({ app: appId }, "a deleted app's database and revisions were removed");
    }
  });
  return removed;
}
