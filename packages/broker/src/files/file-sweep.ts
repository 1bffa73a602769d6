import type { Database } from '../db/database.ts';
import { removeUnheld } from './file-holds.ts';
import { FILE_ID } from './file-rows.ts';
import type { FileStore } from './file-store.ts';

/** Bytes of a generation written this long ago and still without their row are an orphan. */
export const SWEEP_AFTER_MS = 10 * 60_000;

/** Clears a file's pending entry; a database that is down leaves it for the next sweep. */
export async function unpend(db: Database, id: string): Promise<void> {
  await db
    .query('DELETE FROM platform.file_pending WHERE file_id = $1', [id])
    .catch(() => undefined);
}

/**
 * Removes the leftover bytes `FileService.sweep` describes from `store`, once older than
 * `olderThanMs`, and resolves to how many were removed.
 */
export async function sweepLeftovers(
  db: Database,
  store: FileStore,
  olderThanMs: number,
): Promise<number> {
  let removed = await store.sweep(olderThanMs);
  // A file a backup holds keeps its bytes: the backup's release frees them.
  const { rows: pending } = await db.query<{ file_id: string; kept: boolean }>(
    `SELECT p.file_id, (f.id IS NOT NULL OR EXISTS (
              SELECT 1 FROM platform.file_holds h WHERE h.file_id = p.file_id)) AS kept
       FROM platform.file_pending p
       LEFT JOIN platform.files f ON f.id = p.file_id
      WHERE p.created_at < now() - make_interval(secs => $1)`,
    [olderThanMs / 1000],
  );
  for (const { file_id: id, kept } of pending) {
    if (!kept) {
      await store.removeFile(id);
      removed++;
    }
    await unpend(db, id);
  }
  const before = Date.now() - olderThanMs;
  const old: { fileId: string; generation: number }[] = [];
  for await (const stored of store.list()) {
    if (stored.modifiedAt.getTime() < before && FILE_ID.test(stored.fileId)) old.push(stored);
  }
  for (let i = 0; i < old.length; i += 500) {
    const batch = old.slice(i, i + 500);
    const { rows } = await db.query<{ id: string; generation: number }>(
      'SELECT id, generation FROM platform.files WHERE id = ANY($1::text[])',
      [batch.map((c) => c.fileId)],
    );
    const current = new Map(rows.map((row) => [row.id, row.generation]));
    const stale = batch.filter((stored) => {
      const generation = current.get(stored.fileId);
      return generation !== undefined && stored.generation !== generation;
    });
    removed += stale.length - (await removeUnheld(db, store, stale)).length;
  }
  return removed;
}
