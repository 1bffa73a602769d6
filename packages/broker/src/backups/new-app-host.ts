import { PlatformError } from '@platform/errors';
import type { Database } from '../db/database.ts';
import type { FileStore } from '../files/file-store.ts';
import { APP_ID_PATTERN } from '../project/app-id.ts';

/** Where the database of an app made from a backup is restored. */
export type NewAppDatabase =
  /** A PGlite data directory (`undefined`: in memory, as the source is). */
  | { readonly kind: 'pglite'; readonly dataDir: string | undefined }
  /** An empty PostgreSQL database, made for the restore. */
  | { readonly kind: 'postgres'; readonly url: string };

/** What a host makes ready for an app restored from a backup, before the restore fills it. */
export interface NewAppParts {
  readonly database: NewAppDatabase;
  /** The new app's file store: the generations the backup references are copied into it. */
  readonly store: FileStore;
}

/** The app a backup was restored into, as the owner API answers it. */
export interface RestoredApp {
  readonly appId: string;
  /** `{app_url}` of the new app, where it serves now. */
  readonly url: string;
}

/**
 * Makes and serves the new app that `platform backups restore <id> --to <app>` restores into
 * (docs/backups.md): `platform dev` serves it beside the live app, `platform serve` deploys it.
 * The backups feature restores the database and copies the files; the host says where they
 * go and starts the app once they are there.
 */
export interface NewAppHost {
  /** Throws `INVALID_INPUT` for an id that is no app id and `APP_ID_TAKEN` for one in use. */
  check(appId: string): Promise<void>;
  /** Makes the new app's empty database and its file store. */
  prepare(appId: string): Promise<NewAppParts>;
  /**
   * Starts the new app on `db`, its restored database brought up to the platform schema, which
   * the host takes over: it closes it with the app, or at once when the app fails to start.
   */
  start(appId: string, db: Database): Promise<RestoredApp>;
  /** Removes what {@link NewAppHost.prepare} made, after a restore that failed. */
  discard(appId: string): Promise<void>;
}

/** `INVALID_INPUT` unless `appId` is an app id (a DNS label, as every app id). */
export function checkNewAppId(appId: string): void {
  if (!APP_ID_PATTERN.test(appId)) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: `"${appId}" is not an app id: lower-case letters, digits and inner hyphens, at most 40 characters.`,
      details: { field: 'to', appId },
    });
  }
}

/** `APP_ID_TAKEN`: another app has the id `appId` already. */
export function appIdTaken(appId: string): PlatformError {
  return new PlatformError({
    code: 'APP_ID_TAKEN',
    message: `An app "${appId}" exists already; restore into a new app id.`,
    details: { appId },
  });
}
