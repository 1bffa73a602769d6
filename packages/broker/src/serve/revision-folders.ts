import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/database.ts';

/** The folder under the files folder where revisions are kept: never an app id (those have no `_`). */
export const DEPLOYMENTS_FOLDER = '_deployments';

/** The folder of one revision's unpacked files. */
export const revisionDir = (filesDir: string, appId: string, deploymentId: string): string =>
  join(filesDir, DEPLOYMENTS_FOLDER, appId, deploymentId);

/** The archive a revision was deployed as, kept beside its folder. */
export const revisionArchive = (filesDir: string, appId: string, deploymentId: string): string =>
  `${revisionDir(filesDir, appId, deploymentId)}.tar.gz`;

/** Removes revision `deploymentId`'s folder and archive from this node's files folder. */
export async function removeRevisionFiles(
  filesDir: string,
  appId: string,
  deploymentId: string,
): Promise<void> {
  await rm(revisionDir(filesDir, appId, deploymentId), { recursive: true, force: true });
  await rm(revisionArchive(filesDir, appId, deploymentId), { force: true });
}

/**
 * How many of an app's newest revisions `platform serve` keeps for rollback, besides the
 * active one and the one it just replaced (docs/production.md).
 */
export const REVISIONS_KEPT = 5;

/**
 * Removes the revisions of `appId` beyond its `keep` newest: their rows in the central store,
 * their unpacked folders and archives. Never one of `protect` (the active revision and the one
 * still draining), wherever it stands. Answers the removed ids.
 */
export async function pruneRevisions(options: {
  readonly central: Database;
  readonly filesDir: string;
  readonly appId: string;
  readonly keep: number;
  readonly protect: readonly string[];
}): Promise<string[]> {
  const { central, filesDir, appId } = options;
  const { rows } = await central.query<{ id: string }>(
    `DELETE FROM platform.deployments d
      WHERE d.app_id = $1
        AND NOT (d.id = ANY($3::text[]))
        AND NOT EXISTS (SELECT 1 FROM platform.active_deployments a WHERE a.deployment_id = d.id)
        AND d.id NOT IN (SELECT id FROM platform.deployments WHERE app_id = $1
                          ORDER BY created_at DESC, id DESC LIMIT $2)
      RETURNING d.id`,
    [appId, options.keep, [...options.protect]],
  );
  for (const { id } of rows) await removeRevisionFiles(filesDir, appId, id);
  return rows.map((row) => row.id);
}

/**
 * Removes from this node's files folder the revisions of `appId` the central store no longer
 * lists: a node unpacks each revision it serves, and the revisions pruned through another node
 * would otherwise stay on its disk. Never one of `protect` (what this node serves, drains or is
 * receiving now), nor a folder still being unpacked. Answers the removed ids.
 */
export async function removeUnlistedRevisions(options: {
  readonly central: Database;
  readonly filesDir: string;
  readonly appId: string;
  readonly protect: ReadonlySet<string>;
}): Promise<string[]> {
  const { central, filesDir, appId, protect } = options;
  const folder = join(filesDir, DEPLOYMENTS_FOLDER, appId);
  const entries = await readdir(folder).catch(() => [] as string[]);
  // A folder being unpacked is `<id>.part-<uuid>`, renamed into place once complete.
  const here = new Set(
    entries
      .filter((entry) => !entry.includes('.part-'))
      .map((entry) => entry.replace(/\.tar\.gz$/, '')),
  );
  if (here.size === 0) return [];
  const { rows } = await central.query<{ id: string }>(
    'SELECT id FROM platform.deployments WHERE app_id = $1 AND id = ANY($2::text[])',
    [appId, [...here]],
  );
  const listed = new Set(rows.map((row) => row.id));
  const gone = [...here].filter((id) => !listed.has(id) && !protect.has(id));
  for (const id of gone) await removeRevisionFiles(filesDir, appId, id);
  return gone;
}
