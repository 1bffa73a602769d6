import { join } from 'node:path';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { Clock } from '../kernel/clock.ts';
import { printableError } from '../logs/printable.ts';
import { mountFileRoutes } from './file-routes.ts';
import { FileService } from './file-service.ts';

/**
 * Files and their generations in `.platform/files` (spec 4.4). `clock` stamps delegated grants
 * (the job service's clock, so a test that advances one advances both).
 */
export function filesFeature(settings: {
  readonly clock?: Clock | undefined;
}): BrokerFeature<'files', object, FileService> {
  return {
    name: 'files',
    start: async (base) => {
      const files = new FileService(base.db, join(base.stateDir, 'files'), {
        clock: settings.clock,
      });
      // Temp files and empty folders of writes that a full disk or a crash interrupted.
      await files.blobs
        .sweep()
        .catch((error) => base.print(`WARN  files sweep: ${printableError(error)}`));
      return files;
    },
    mount: {
      routes: (app, files, _needs, { authenticate }) =>
        mountFileRoutes(app, { files, authenticate }),
    },
  };
}
