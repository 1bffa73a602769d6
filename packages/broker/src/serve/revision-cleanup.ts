import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Database } from '../db/database.ts';
import { revisionDir } from './deployed-apps.ts';

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
  for (const { id } of rows) {
    const dir = revisionDir(filesDir, appId, id);
    await rm(dir, { recursive: true, force: true });
    await rm(join(dirname(dir), `${id}.tar.gz`), { force: true });
  }
  return rows.map((row) => row.id);
}
