import { limits } from '@platform/schema';
import type { FileStore } from '../files/file-store.ts';
import { BackupCatalog } from './backup-catalog.ts';
import { defaultRetention, type Retention, retained } from './retention.ts';

/** What one sweep of a deleted app's store did. */
export interface DeletedAppSweep {
  /** The backups removed now (their retention ended, or the erasure deadline passed). */
  readonly erased: readonly string[];
  /** File generations removed now: bytes no retained backup holds. */
  readonly freedGenerations: number;
  /** Backups still retained: the store is empty once this is 0. */
  readonly remaining: number;
}

/**
 * Sweeps the file store of an app deleted with its owner's account at `deletedAt` (spec 3.5,
 * docs/backups.md): its database is gone, so every file generation that no retained backup
 * holds goes now; each backup goes when its retention ends, and all of them, with the bytes
 * they held, by `limits.backups.erasureMaxSeconds` after the deletion (or the erasure marker's
 * earlier deadline). Once nothing is retained, the backups' settings and marker go too and the
 * store is empty. Idempotent: a sweep cut short is finished by the next.
 *
 * @example
 * ```ts
 * const { remaining } = await sweepDeletedAppStore(store, { deletedAt, now: clock.now() });
 * ```
 */
export async function sweepDeletedAppStore(
  store: FileStore,
  at: { readonly deletedAt: Date; readonly now: Date; readonly retention?: Retention },
): Promise<DeletedAppSweep> {
  const catalog = new BackupCatalog(store);
  let eraseBy = at.deletedAt.getTime() + limits.backups.erasureMaxSeconds * 1000;
  const marker = await catalog.erasure();
  if (marker !== undefined) eraseBy = Math.min(eraseBy, Date.parse(marker.eraseBy));
  const records = await catalog.list();
  const keep = retained(records, at.now, at.retention ?? defaultRetention, new Date(eraseBy));
  const erased: string[] = [];
  for (const record of records) {
    if (keep.has(record.id)) continue;
    await catalog.remove(record.id);
    erased.push(record.id);
  }
  for (const id of await catalog.unfinished()) await catalog.remove(id);
  // What the retained backups still hold; every other generation lost its row with the database.
  const held = new Set(
    records.filter((r) => keep.has(r.id)).flatMap((r) => r.files.map(([id, g]) => `${id}/${g}`)),
  );
  const unheld: { fileId: string; generation: number }[] = [];
  for await (const stored of store.list()) {
    if (BackupCatalog.owns(stored.fileId)) continue;
    if (!held.has(`${stored.fileId}/${stored.generation}`)) unheld.push(stored);
  }
  for (const one of unheld) await store.removeGeneration(one.fileId, one.generation);
  if (keep.size === 0) {
    await catalog.forget();
    // Writes an ended broker left half done (temp files, unfinished multipart uploads).
    await store.sweep(0);
  }
  return { erased, freedGenerations: unheld.length, remaining: keep.size };
}
