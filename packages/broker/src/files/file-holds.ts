import type { Database, Queryable } from '../db/database.ts';
import type { FileStore } from './file-store.ts';

/** One generation of one file. */
export interface FileGeneration {
  readonly fileId: string;
  readonly generation: number;
}

/**
 * The advisory key under which bytes are removed and holds are taken, so a removal that checked
 * for holds cannot delete bytes a hold taken meanwhile keeps (see {@link holdGenerations}).
 */
export const FILE_HOLDS_KEY = 'platform.file_holds';

/** Which of `generations` a holder keeps, as `fileId/generation` keys. */
export async function heldAmong(
  q: Queryable,
  generations: readonly FileGeneration[],
): Promise<Set<string>> {
  if (generations.length === 0) return new Set();
  const { rows } = await q.query<{ file_id: string; generation: number }>(
    `SELECT DISTINCT h.file_id, h.generation FROM platform.file_holds h
       JOIN unnest($1::text[], $2::int[]) AS g(file_id, generation)
         ON g.file_id = h.file_id AND g.generation = h.generation`,
    [generations.map((g) => g.fileId), generations.map((g) => g.generation)],
  );
  return new Set(rows.map((row) => keyOf(row.file_id, row.generation)));
}

/** `fileId/generation`. */
export const keyOf = (fileId: string, generation: number): string => `${fileId}/${generation}`;

/**
 * Removes the bytes of `generations` that no holder keeps, under {@link FILE_HOLDS_KEY}, and
 * resolves to those it kept. A store that fails throws (the caller leaves the rest to the sweep).
 */
export async function removeUnheld(
  db: Database,
  store: FileStore,
  generations: readonly FileGeneration[],
): Promise<FileGeneration[]> {
  return db.exclusive(FILE_HOLDS_KEY, async (q) => {
    const held = await heldAmong(q, generations);
    const kept: FileGeneration[] = [];
    for (const g of generations) {
      if (held.has(keyOf(g.fileId, g.generation))) kept.push(g);
      else await store.removeGeneration(g.fileId, g.generation);
    }
    return kept;
  });
}

/**
 * Records that `holder` keeps `generations` and resolves to those whose bytes are no longer in
 * the store. Taken under {@link FILE_HOLDS_KEY}: a removal that ran before it has deleted its
 * bytes already (and they are reported missing), one after it sees the hold and keeps them.
 */
export async function holdGenerations(
  db: Database,
  store: FileStore,
  holder: string,
  generations: readonly FileGeneration[],
): Promise<FileGeneration[]> {
  return db.exclusive(FILE_HOLDS_KEY, async (q) => {
    if (generations.length > 0) {
      // One statement: on PGlite an exclusive section commits each statement by itself.
      await q.query(
        `INSERT INTO platform.file_holds (holder, file_id, generation)
         SELECT $1, file_id, generation FROM unnest($2::text[], $3::int[]) AS g(file_id, generation)
         ON CONFLICT DO NOTHING`,
        [holder, generations.map((g) => g.fileId), generations.map((g) => g.generation)],
      );
    }
    const missing: FileGeneration[] = [];
    for (const g of generations) {
      const body = await store.get(g.fileId, g.generation);
      if (body === undefined) missing.push(g);
      else body.destroy();
    }
    return missing;
  });
}

/**
 * Ends `holder`'s holds and removes the bytes of the generations it held that nothing needs any
 * more: no other holder keeps them and no file row has them as its current generation.
 * Resolves to how many generations were removed.
 */
export async function releaseHolds(
  db: Database,
  store: FileStore,
  holder: string,
): Promise<number> {
  const { rows } = await db.query<{ file_id: string; generation: number }>(
    'DELETE FROM platform.file_holds WHERE holder = $1 RETURNING file_id, generation',
    [holder],
  );
  if (rows.length === 0) return 0;
  const { rows: live } = await db.query<{ id: string; generation: number }>(
    'SELECT id, generation FROM platform.files WHERE id = ANY($1::text[])',
    [[...new Set(rows.map((row) => row.file_id))]],
  );
  const current = new Set(live.map((row) => keyOf(row.id, row.generation)));
  const freed = rows
    .filter((row) => !current.has(keyOf(row.file_id, row.generation)))
    .map((row) => ({ fileId: row.file_id, generation: row.generation }));
  const kept = await removeUnheld(db, store, freed);
  return freed.length - kept.length;
}
