import { PlatformError } from '@platform/errors';
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
import { openFileStore } from '../files/files-feature.ts';
import type { Clock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import { ACTIVATIONS_CHANNEL, appFileStorage, appStateDir, appUrlOf } from './deployed-apps.ts';
import { deploymentLock } from './deployment-routes.ts';
import type { ServeSettings } from './serve-settings.ts';

/** What the new apps of `platform serve` need from the service. */
export interface ServeRestoredAppsOptions {
  readonly settings: ServeSettings;
  readonly central: Database;
  readonly clock: Clock;
  /** Starts the active revision of `appId` on this node (other nodes follow the announcement). */
  readonly sync: (appId: string) => Promise<void>;
}

/**
 * The apps `platform serve` restores backups into beside a deployed app (docs/backups.md): a
 * new app of the organisation with its own database `platform_app_<id>` in the cluster, its own
 * files (in its prefix of the bucket or its own folder), the live app's owner, and an active
 * deployment of the live app's active revision, so it serves at `<id>.<base domain>` at once.
 * It starts without secrets. {@link ServeRestoredApps.hostFor} is the host of one live app.
 */
export class ServeRestoredApps {
  readonly #o: ServeRestoredAppsOptions;

  constructor(options: ServeRestoredAppsOptions) {
    this.#o = options;
  }

  /** The host that makes new apps from the backups of the deployed app `liveAppId`. */
  hostFor(liveAppId: string): NewAppHost {
    const { settings, central } = this.#o;
    // The ids this host registered: a failed restore removes only its own registry rows.
    const registered = new Set<string>();
    const storeOf = (appId: string) =>
      openFileStore(appFileStorage(settings, appId), {
        stateDir: appStateDir(settings.filesDir, appId),
        appId,
      });
    return {
      check: async (appId) => {
        checkNewAppId(appId);
        // An app of the registry, a deleted one whose files are not swept yet, or a database of
        // that name left in the cluster: all in use.
        const { rows } = await central.query(
          `SELECT 1 FROM platform.apps WHERE app_id = $1
           UNION ALL
           SELECT 1 FROM platform.deleted_apps WHERE app_id = $1 AND files_erased_at IS NULL`,
          [appId],
        );
        if (
          rows.length > 0 ||
          (await databaseExists(settings.databaseUrl, appDatabaseName(appId)))
        ) {
          throw appIdTaken(appId);
        }
      },
      prepare: async (appId): Promise<NewAppParts> => {
        const url = await createDatabase(settings.databaseUrl, appId);
        return { database: { kind: 'postgres', url }, store: storeOf(appId) };
      },
      start: async (appId, db): Promise<RestoredApp> => {
        // The revision's broker opens the database itself (and applies the revision's
        // migrations the backup predates).
        await db.close();
        await this.#register(liveAppId, appId);
        registered.add(appId);
        await this.#o.sync(appId);
        return { appId, url: appUrlOf(settings.baseUrl, appId) };
      },
      discard: async (appId) => {
        if (registered.delete(appId)) {
          await central.transaction(async (tx) => {
            // The deployment rows first: the registry's delete then records no deleted app.
            await tx.query('DELETE FROM platform.active_deployments WHERE app_id = $1', [appId]);
            await tx.query('DELETE FROM platform.deployments WHERE app_id = $1', [appId]);
            await tx.query('DELETE FROM platform.apps WHERE app_id = $1', [appId]);
          });
        }
        await dropDatabase(settings.databaseUrl, appDatabaseName(appId));
        const store = storeOf(appId);
        try {
          const stored: { fileId: string; generation: number }[] = [];
          for await (const one of store.list()) stored.push(one);
          for (const one of stored) await store.removeGeneration(one.fileId, one.generation);
        } finally {
          store.close();
        }
      },
    };
  }

  /**
   * Registers `appId` with the live app's owner and a deployment of the live app's active
   * revision (its archive copied), made active and announced; under the new app's deployment
   * lock, so no deployment of the same id runs meanwhile.
   */
  async #register(liveAppId: string, appId: string): Promise<void> {
    const { central, clock } = this.#o;
    await central.session(async (session) => {
      await session.query('SELECT pg_advisory_lock(hashtext($1))', [deploymentLock(appId)]);
      try {
        await session.transaction(async (tx) => {
          const { rows: taken } = await tx.query('SELECT 1 FROM platform.apps WHERE app_id = $1', [
            appId,
          ]);
          if (taken.length > 0) throw appIdTaken(appId);
          const { rows } = await tx.query<{ deployment_id: string; owner: string | null }>(
            `SELECT a.deployment_id, p.owner_account_id AS owner
               FROM platform.active_deployments a JOIN platform.apps p USING (app_id)
              WHERE a.app_id = $1`,
            [liveAppId],
          );
          const live = rows[0];
          if (live === undefined || live.owner === null) {
            throw new PlatformError({
              code: 'FEATURE_NOT_AVAILABLE',
              message: `${liveAppId} has no active revision with an owner to restore a new app from.`,
            });
          }
          const id = newId('deployment');
          const now = clock.now();
          await tx.query('INSERT INTO platform.apps (app_id, owner_account_id) VALUES ($1, $2)', [
            appId,
            live.owner,
          ]);
          await tx.query(
            `INSERT INTO platform.deployments
               (id, app_id, digest, manifest, migrations, functions, archive_bytes, deployed_by, created_at)
             SELECT $1, $2, digest, manifest, migrations, functions, archive_bytes, $3, $4
               FROM platform.deployments WHERE id = $5`,
            [id, appId, live.owner, now, live.deployment_id],
          );
          await tx.query(
            `INSERT INTO platform.deployment_archives (deployment_id, archive)
             SELECT $1, archive FROM platform.deployment_archives WHERE deployment_id = $2`,
            [id, live.deployment_id],
          );
          await tx.query(
            `INSERT INTO platform.active_deployments (app_id, deployment_id, activated_by, activated_at)
             VALUES ($1, $2, $3, $4)`,
            [appId, id, live.owner, now],
          );
          await tx.query('SELECT pg_notify($1, $2)', [ACTIVATIONS_CHANNEL, appId]);
        });
      } finally {
        await session.query('SELECT pg_advisory_unlock(hashtext($1))', [deploymentLock(appId)]);
      }
    });
  }
}

/** The new app's empty database; a concurrent restore into the same id makes it `APP_ID_TAKEN`. */
async function createDatabase(url: string, appId: string): Promise<string> {
  const name = checkDatabaseName(appDatabaseName(appId));
  await withServer(url, (client) =>
    client.query(`CREATE DATABASE ${name} TEMPLATE template0`).catch((error: { code?: string }) => {
      // duplicate_database
      if (error.code === '42P04') throw appIdTaken(appId);
      throw error;
    }),
  );
  return databaseUrl(url, name);
}
