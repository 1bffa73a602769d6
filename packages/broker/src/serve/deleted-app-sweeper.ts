import { rm } from 'node:fs/promises';
import { type DeletedAppSweep, sweepDeletedAppStore } from '../backups/deleted-app-store.ts';
import type { Retention } from '../backups/retention.ts';
import type { Database } from '../db/database.ts';
import { openFileStore } from '../files/files-feature.ts';
import type { Clock } from '../kernel/clock.ts';
import type { ServiceLogger } from '../observability/logger.ts';
import { appFileStorage, appStateDir } from './deployed-apps.ts';
import { deploymentLock } from './deployment-routes.ts';
import type { ServeSettings } from './serve-settings.ts';

/** How often the service looks for deleted apps' files and backups whose time came. */
export const DELETED_APP_SWEEP_MS = 60 * 60_000;

/** What the sweep needs from the service. */
export interface DeletedAppSweeperOptions {
  readonly settings: ServeSettings;
  readonly central: Database;
  readonly clock: Clock;
  readonly logger: ServiceLogger;
  /** @default the backups' default retention (`limits.backups`) */
  readonly retention?: Retention | undefined;
}

/**
 * Empties the file stores of the apps deleted with their owner's account (spec 3.5,
 * docs/backups.md), in the bucket or in the files folder alike: the files whose rows went with
 * the database at once, and the backups (archives, records and the generations they hold) when
 * their retention ends, at the latest `limits.backups.erasureMaxSeconds` after the deletion. It
 * runs when the service starts and then every {@link DELETED_APP_SWEEP_MS}; an app's sweep holds
 * the app's deployment lock, so a deployment of the same id anew waits and is never swept.
 */
export class DeletedAppSweeper {
  readonly #o: DeletedAppSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(options: DeletedAppSweeperOptions) {
    this.#o = options;
  }

  /** Sweeps every deleted app whose store is not empty yet; resolves to what each sweep did. */
  sweep(): Promise<Map<string, DeletedAppSweep>> {
    const run = this.#running.then(() => this.#sweepAll());
    this.#running = run.catch(() => undefined);
    return run;
  }

  /**
   * Sweeps now, in the background, and then every {@link DELETED_APP_SWEEP_MS}, logging what
   * fails. The first sweep is not awaited: with object storage down it would hold the service's
   * start for the store's retries of every deleted app, and each sweep takes the app's
   * deployment lock anyway.
   */
  start(): void {
    const once = () =>
      this.sweep().catch((error: unknown) =>
        this.#o.logger.error({ err: String(error) }, "a deleted app's files were not swept"),
      );
    void once();
    this.#timer = setInterval(once, DELETED_APP_SWEEP_MS);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a sweep under way. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  async #sweepAll(): Promise<Map<string, DeletedAppSweep>> {
    const { rows } = await this.#o.central.query<{ app_id: string }>(
      `SELECT d.app_id FROM platform.deleted_apps d
        WHERE d.files_erased_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM platform.apps a WHERE a.app_id = d.app_id)
        ORDER BY d.app_id`,
    );
    const done = new Map<string, DeletedAppSweep>();
    for (const { app_id: appId } of rows) {
      try {
        const sweep = await this.#sweepApp(appId);
        if (sweep !== undefined) done.set(appId, sweep);
      } catch (error) {
        // One app's store being down leaves the others to be swept.
        this.#o.logger.error(
          { app: appId, err: String(error) },
          "a deleted app's files were not swept",
        );
      }
    }
    return done;
  }

  /** One app, under its deployment lock; `undefined` when it was deployed anew meanwhile. */
  #sweepApp(appId: string): Promise<DeletedAppSweep | undefined> {
    const { settings, central, clock, logger } = this.#o;
    return central.session(async (session) => {
      await session.query('SELECT pg_advisory_lock(hashtext($1))', [deploymentLock(appId)]);
      try {
        const { rows } = await session.query<{ deleted_at: Date | string }>(
          `SELECT d.deleted_at FROM platform.deleted_apps d
            WHERE d.app_id = $1 AND d.files_erased_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM platform.apps a WHERE a.app_id = d.app_id)`,
          [appId],
        );
        const row = rows[0];
        if (row === undefined) return undefined;
        const storage = appFileStorage(settings, appId);
        const store = openFileStore(storage, {
          stateDir: appStateDir(settings.filesDir, appId),
          appId,
        });
        let sweep: DeletedAppSweep;
        try {
          sweep = await sweepDeletedAppStore(store, {
            deletedAt: new Date(row.deleted_at),
            now: clock.now(),
            ...(this.#o.retention ? { retention: this.#o.retention } : {}),
          });
        } finally {
          store.close();
        }
        if (sweep.remaining === 0) {
          if (storage.kind === 'folder' && storage.dir !== undefined) {
            await rm(storage.dir, { recursive: true, force: true });
          }
          await session.query(
            'UPDATE platform.deleted_apps SET files_erased_at = $2 WHERE app_id = $1',
            [appId, clock.now()],
          );
        }
        if (sweep.erased.length > 0 || sweep.freedGenerations > 0 || sweep.remaining === 0) {
          logger.info(
            {
              app: appId,
              backupsErased: sweep.erased.length,
              generationsFreed: sweep.freedGenerations,
              backupsLeft: sweep.remaining,
            },
            "a deleted app's files and backups were swept",
          );
        }
        return sweep;
      } finally {
        await session.query('SELECT pg_advisory_unlock(hashtext($1))', [deploymentLock(appId)]);
      }
    });
  }
}
