import type { SchemaStep } from '../db/platform-schema.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { FileService } from '../files/file-service.ts';
import type { Clock } from '../kernel/clock.ts';
import { printableError } from '../logs/printable.ts';
import { mountBackupRoutes, mountRestoringGate } from './backup-routes.ts';
import { BackupService } from './backup-service.ts';
import { backupsSection } from './backups-section.ts';
import type { NewAppHost } from './new-app-host.ts';

/** How often the schedule looks whether a backup is due (the interval itself is per app). */
const TICK_MS = 60 * 60_000;

/**
 * Backups of the app's database and the file generations it references (docs/backups.md), in
 * the files' store: on demand, on a schedule, and restored in one step. `platformSchema` is the
 * broker's, run on a restored archive taken under an older one.
 */
export function backupsFeature(settings: {
  readonly platformSchema: readonly SchemaStep[];
  readonly clock?: Clock | undefined;
  /** Makes the new app a backup is restored into (`platform backups restore --to`). */
  readonly newApps?: NewAppHost | undefined;
}): BrokerFeature<'backups', { files: FileService }, BackupService> {
  let service: BackupService | undefined;
  return {
    name: 'backups',
    start: (base, { files }) => {
      const backups = new BackupService({
        appId: base.appId,
        db: base.db,
        store: files.store,
        stateDir: base.stateDir,
        platformSchema: settings.platformSchema,
        clock: settings.clock ?? base.clock,
        newApps: settings.newApps,
      });
      service = backups;
      const timer = setInterval(() => {
        backups
          .tick()
          .catch((error) => base.print(`WARN  scheduled backup: ${printableError(error)}`));
      }, TICK_MS);
      timer.unref();
      base.onClose(() => clearInterval(timer));
      return backups;
    },
    mount: {
      edge: (app, backups) => mountRestoringGate(app, backups),
      routes: (app, backups, _needs, { appId }) => mountBackupRoutes(app, { appId, backups }),
    },
    dashboard: [backupsSection],
    erasure: {
      // The organisation, and with it the app, goes with its only member's account: its backups
      // are erased once their retention ends, within `limits.backups.erasureMaxSeconds`.
      organisation: async () => {
        await service?.eraseLater();
      },
    },
  };
}
