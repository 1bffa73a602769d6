import { dirname, join } from 'node:path';
import { PrivateCluster } from '../db/private-cluster.ts';
import { ensureStateDir } from './state-dir.ts';

/**
 * Starts the private cluster of `dir` (an app's or a workspace's folder) in
 * `<dir>/.platform/cluster`; the caller closes it after the databases on it. Its template lives
 * beside the PGlite snapshot `snapshotPath` when one is given (tests keep both in their own
 * cache), else in the machine cache. `onPreparing` is told before initdb makes that template.
 *
 * @example
 * ```ts
 * const cluster = await startDevCluster(appDir);
 * const url = await ensureDatabase(cluster.url, appDatabaseName(appId));
 * ```
 */
export async function startDevCluster(
  dir: string,
  snapshotPath?: string | undefined,
  onPreparing?: (() => void) | undefined,
): Promise<PrivateCluster> {
  return PrivateCluster.start({
    dir: join(await ensureStateDir(dir), 'cluster'),
    ...(snapshotPath ? { cacheDir: dirname(snapshotPath) } : {}),
    onPreparing,
  });
}
