import { join } from 'node:path';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { Clock } from '../kernel/clock.ts';
import { printableError } from '../logs/printable.ts';
import { mountFileRoutes } from './file-routes.ts';
import { FileService } from './file-service.ts';
import type { FileStore } from './file-store.ts';
import { filesSection, mountFileListingRoute } from './files-section.ts';
import { FolderFileStore } from './folder-store.ts';
import { S3FileStore, type S3StoreSettings } from './s3-store.ts';

/**
 * Where a broker keeps the bytes of files (docs/production.md, "File storage"): a local folder,
 * or S3-compatible object storage, where each app's files sit under `<prefix><app id>/`.
 */
export type FileStorageSettings =
  | {
      readonly kind: 'folder';
      /** @default `.platform/files` in the app folder */
      readonly dir?: string | undefined;
    }
  | ({ readonly kind: 's3' } & S3StoreSettings);

/** The store `storage` names, for the app `appId` whose state folder is `stateDir`. */
export function openFileStore(
  storage: FileStorageSettings | undefined,
  where: { readonly stateDir: string; readonly appId: string },
): FileStore {
  if (storage?.kind === 's3') {
    const { kind: _, ...settings } = storage;
    return new S3FileStore({ ...settings, prefix: `${settings.prefix ?? ''}${where.appId}/` });
  }
  return new FolderFileStore(storage?.dir ?? join(where.stateDir, 'files'));
}

/**
 * Files and their generations (spec 4.4), their bytes in the folder `.platform/files` or in
 * object storage (`storage`). `clock` stamps delegated grants (the job service's clock, so a
 * test that advances one advances both).
 */
export function filesFeature(settings: {
  readonly clock?: Clock | undefined;
  readonly storage?: FileStorageSettings | undefined;
}): BrokerFeature<'files', object, FileService> {
  return {
    name: 'files',
    start: async (base) => {
      const store = openFileStore(settings.storage, base);
      base.onClose(() => store.close());
      const files = new FileService(base.db, store, { clock: settings.clock });
      // Leftovers of writes that a full disk, a storage outage or a crash interrupted, and bytes
      // whose row never came or is gone. A store that is down now is swept at the next start.
      await files
        .sweep()
        .catch((error) =>
          base.print(`WARN  files sweep (${store.description}): ${printableError(error)}`),
        );
      return files;
    },
    dashboard: [filesSection],
    mount: {
      routes: (app, files, _needs, { appId, authenticate }) => {
        mountFileRoutes(app, { files, authenticate });
        mountFileListingRoute(app, { appId, files });
      },
    },
  };
}
