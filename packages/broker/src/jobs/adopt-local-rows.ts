import type { Database } from '../db/database.ts';
import type { JobScope } from './job-policy.ts';

/** The app id brokers stored jobs and cron state under before every app had a real id. */
export const LEGACY_APP_ID = 'local';

/**
 * Moves the job history and cron state an older broker stored under the app id `local` to the
 * app's real id, in one transaction, so an app keeps its jobs across the upgrade. A row the real
 * id already holds (same cron schedule, same idempotency key) wins over the old one. Does nothing once no `local` row is left, or
 * when the scope's id is `local` itself.
 */
export async function adoptLocalRows(db: Database, scope: JobScope): Promise<void> {
  if (scope.appId === LEGACY_APP_ID) return;
  await db.transaction(async (tx) => {
    // A row whose idempotency key the real id already used stays under `local`: unseen, not lost.
    await tx.query(
      `UPDATE platform.jobs AS old SET app_id = $1
        WHERE old.app_id = $2 AND NOT EXISTS (
          SELECT 1 FROM platform.jobs AS cur
           WHERE cur.app_id = $1 AND cur.environment = old.environment
             AND cur.namespace = old.namespace AND cur.kind = old.kind
             AND cur.queue = old.queue AND cur.idempotency_key = old.idempotency_key)`,
      [scope.appId, LEGACY_APP_ID],
    );
    await tx.query(
      `UPDATE platform.cron_state AS old SET app_id = $1
        WHERE old.app_id = $2 AND NOT EXISTS (
          SELECT 1 FROM platform.cron_state AS cur
           WHERE cur.app_id = $1 AND cur.environment = old.environment
             AND cur.namespace = old.namespace AND cur.name = old.name)`,
      [scope.appId, LEGACY_APP_ID],
    );
    await tx.query('DELETE FROM platform.cron_state WHERE app_id = $1', [LEGACY_APP_ID]);
  });
}
