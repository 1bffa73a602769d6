import type { Readable } from 'node:stream';
import { PlatformError } from '@platform/errors';
import type { Database } from '../db/database.ts';
import type { FileGrant, GrantedFile } from '../functions/invocation-tokens.ts';
import type { Caller } from '../kernel/caller.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import { checkGrantedRead, type DelegatorAccess, pinFileGrant } from './file-grants.ts';
import { FILE_HOLDS_KEY, removeUnheld } from './file-holds.ts';
import {
  FILE_ID,
  type FileInfo,
  type FileRow,
  notFound,
  requireOwner,
  requireWriter,
  toInfo,
} from './file-rows.ts';
import type { FileStore } from './file-store.ts';
import { SWEEP_AFTER_MS, sweepLeftovers, unpend } from './file-sweep.ts';
import { FolderFileStore } from './folder-store.ts';
import { type FileContent, measured } from './measured-content.ts';

export type { FileInfo } from './file-rows.ts';
export type { FileContent } from './measured-content.ts';

/** How to build a {@link FileService}. */
export interface FileServiceOptions {
  /**
   * The clock delegated grants expire by: the one the job service stamps them with.
   * @default the system clock
   */
  readonly clock?: Clock | undefined;
}

/**
 * The `files` member of the handler context. Contents live in a {@link FileStore} (the folder
 * `.platform/files`, or S3-compatible object storage), metadata and generations in the database. Access rules (the spec leaves them open; ours):
 * a file id is an unguessable capability, so whoever holds a ref may read the file; uploading
 * needs a user or the system (never anonymous, spec 5.1.5); replacing and removing need the
 * uploader or the system. Every write is atomic: bytes are stored in full before the row
 * commits, and a failed commit removes them again; a store that cannot take them answers
 * `STORAGE_UNAVAILABLE` and no row is written. Bytes left without a row (a process killed
 * between the two, a delete whose store was down) are removed by {@link FileService.sweep}. It also answers for delegated read grants
 * (`files: { read }` of an enqueue): which generations a grant pins, and whether a read under
 * a grant may proceed.
 *
 * @example
 * ```ts
 * const files = new FileService(db, new FolderFileStore('.platform/files'));
 * const info = await files.upload(caller, { data, name: 'a.png', contentType: 'image/png' });
 * ```
 */
export class FileService {
  readonly #db: Database;
  readonly #clock: Clock;
  #delegatorAccess: DelegatorAccess | undefined;
  /** Where the bytes live. */
  readonly store: FileStore;

  /** `store` is a {@link FileStore}, or the path of a folder for a {@link FolderFileStore}. */
  constructor(db: Database, store: FileStore | string, options: FileServiceOptions = {}) {
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
    this.store = typeof store === 'string' ? new FolderFileStore(store) : store;
  }

  /**
   * Stores a new file (generation 1). `options.id` is an id from `newId('file')` chosen ahead,
   * for a caller that records it before the bytes exist (so that a crash mid-write leaves a
   * record of what to {@link FileService.discard}).
   */
  async upload(
    caller: Caller,
    input: { data: FileContent; name: string; contentType: string },
    options: { readonly id?: string | undefined } = {},
  ): Promise<FileInfo> {
    requireWriter(caller);
    const content = measured(input.data);
    const id = options.id ?? newId('file');
    if (!FILE_ID.test(id)) {
      throw new PlatformError({
        code: 'INTERNAL',
        message: 'A file id chosen ahead must come from newId("file").',
      });
    }
    // Recorded first, so that bytes a crash or an outage strands after this are swept.
    await this.#db.query(
      'INSERT INTO platform.file_pending (file_id) VALUES ($1) ON CONFLICT DO NOTHING',
      [id],
    );
    try {
      await this.store.put(id, 1, content.body);
    } catch (error) {
      await this.#unpend(id);
      throw error;
    }
    const { size, sha } = content.result();
    try {
      const row = await this.#db.transaction(async (tx) => {
        const { rows } = await tx.query<FileRow>(
          `INSERT INTO platform.files (id, owner_id, name, content_type, size, generation, sha256)
           VALUES ($1, $2, $3, $4, $5, 1, $6) RETURNING *`,
          [
            id,
            caller.kind === 'user' ? caller.userId : null,
            input.name,
            input.contentType,
            size,
            sha,
          ],
        );
        await tx.query(
          'INSERT INTO platform.file_generations (file_id, generation, size, sha256) VALUES ($1, 1, $2, $3)',
          [id, size, sha],
        );
        await tx.query('DELETE FROM platform.file_pending WHERE file_id = $1', [id]);
        return rows[0]!;
      });
      return toInfo(row);
    } catch (error) {
      if (
        await this.store.removeFile(id).then(
          () => true,
          () => false,
        )
      )
        await this.#unpend(id);
      throw error;
    }
  }

  /** Metadata of a file. */
  async info(_caller: Caller, ref: string): Promise<FileInfo> {
    return toInfo(await this.#find(ref));
  }

  /** The metadata of the current generation and its bytes as a stream, read as they are sent. */
  async open(_caller: Caller, ref: string): Promise<{ file: FileInfo; body: Readable }> {
    const row = await this.#find(ref);
    const body = await this.store.get(row.id, row.generation);
    if (!body) throw notFound(ref);
    return { file: toInfo(row), body };
  }

  /** The bytes and metadata of the current generation, in memory (a Function's call). */
  async download(caller: Caller, ref: string): Promise<{ file: FileInfo; data: Buffer }> {
    const { file, body } = await this.open(caller, ref);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return { file, data: Buffer.concat(chunks) };
  }

  /** New content (and optionally a new name or type) as a new generation, same ref. */
  async replace(
    caller: Caller,
    ref: string,
    input: { data: FileContent; name?: string | undefined; contentType?: string | undefined },
  ): Promise<FileInfo> {
    requireWriter(caller);
    const content = measured(input.data);
    const current = await this.#find(ref);
    requireOwner(caller, current);
    const generation = current.generation + 1;
    await this.store.put(current.id, generation, content.body);
    const { size, sha } = content.result();
    let row: FileRow | undefined;
    try {
      row = await this.#db.transaction(async (tx) => {
        // Compare-and-set on the generation: two replaces racing cannot both win.
        const { rows } = await tx.query<FileRow>(
          `UPDATE platform.files SET generation = $2, size = $3, sha256 = $4,
                  name = coalesce($5, name), content_type = coalesce($6, content_type), updated_at = now()
            WHERE id = $1 AND generation = $7 RETURNING *`,
          [
            current.id,
            generation,
            size,
            sha,
            input.name ?? null,
            input.contentType ?? null,
            current.generation,
          ],
        );
        if (!rows[0]) {
          throw new PlatformError({
            code: 'FILE_NOT_FOUND',
            message: 'The file changed or was removed during the replace.',
          });
        }
        await tx.query(
          'INSERT INTO platform.file_generations (file_id, generation, size, sha256) VALUES ($1, $2, $3, $4)',
          [current.id, generation, size, sha],
        );
        return rows[0];
      });
    } catch (error) {
      await this.store.removeGeneration(current.id, generation).catch(() => undefined);
      throw error;
    }
    // The replace has happened; bytes the store keeps now (it is down) go with the sweep, and
    // bytes a backup holds stay until it is released.
    await removeUnheld(this.#db, this.store, [
      { fileId: current.id, generation: current.generation },
    ]).catch(() => undefined);
    return toInfo(row);
  }

  /** Deletes a file and its contents. */
  async remove(caller: Caller, ref: string): Promise<void> {
    requireWriter(caller);
    const current = await this.#find(ref);
    requireOwner(caller, current);
    await this.#db.transaction(async (tx) => {
      await tx.query('DELETE FROM platform.files WHERE id = $1', [current.id]);
      await tx.query('DELETE FROM platform.file_generations WHERE file_id = $1', [current.id]);
      await tx.query(
        'INSERT INTO platform.file_pending (file_id) VALUES ($1) ON CONFLICT DO NOTHING',
        [current.id],
      );
    });
    // The file is gone; bytes the store keeps now (it is down) go with the sweep.
    await this.#removeBytes(current.id, current.generation);
  }

  /**
   * Removes the rows and contents of files by id, whether their upload committed, broke off
   * half-way or never began (missing is fine): how the system clears the files of work that was
   * interrupted. No caller check; only broker code that owns the ids calls it.
   */
  async discard(ids: readonly string[]): Promise<void> {
    const valid = ids.filter((id) => FILE_ID.test(id));
    if (valid.length === 0) return;
    await this.#db.transaction(async (tx) => {
      await tx.query('DELETE FROM platform.files WHERE id = ANY($1::text[])', [valid]);
      await tx.query('DELETE FROM platform.file_generations WHERE file_id = ANY($1::text[])', [
        valid,
      ]);
      await tx.query(
        'INSERT INTO platform.file_pending (file_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING',
        [valid],
      );
    });
    for (const id of valid) await this.#removeBytes(id);
  }

  /**
   * Deletes a file's bytes and its pending entry; a store that is down leaves both to the sweep.
   * Generations a backup holds keep their bytes (up to `generation`, the last one the file had),
   * freed when the backup is released.
   */
  async #removeBytes(id: string, generation = 0): Promise<void> {
    const removed = await this.#db
      .exclusive(FILE_HOLDS_KEY, async (q) => {
        const { rows } = await q.query<{ generation: number }>(
          'SELECT DISTINCT generation FROM platform.file_holds WHERE file_id = $1',
          [id],
        );
        if (rows.length === 0) return this.store.removeFile(id);
        const held = new Set(rows.map((row) => row.generation));
        for (let g = 1; g <= generation; g++) {
          if (!held.has(g)) await this.store.removeGeneration(id, g);
        }
      })
      .then(
        () => true,
        () => false,
      );
    if (removed) await this.#unpend(id);
  }

  async #unpend(id: string): Promise<void> {
    await unpend(this.#db, id);
  }

  /**
   * Removes bytes left behind, once older than `olderThanMs` (younger ones may belong to a write
   * in flight on this or another broker): what interrupted writes left in the store, the bytes
   * of files recorded as pending (an upload whose row never came, a removal while the store was
   * down) that have no row, and generations other than a file's current one (a replace whose
   * old bytes could not be removed, or whose commit failed). Bytes of which the database has no record are left alone:
   * the store may be shared with, or restored from, another database. Resolves to how many
   * were removed.
   */
  /**
   * The app's files for its owner's console, newest first: metadata and the uploading user,
   * never contents. `limit` 1..100.
   */
  async listForOwner(
    limit: number,
    offset: number,
  ): Promise<{ files: (FileInfo & { ownerId: string | null })[]; total: number }> {
    const { rows } = await this.#db.query<FileRow>(
      'SELECT * FROM platform.files ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2',
      [limit, offset],
    );
    const counted = await this.#db.query<{ n: string }>('SELECT count(*) AS n FROM platform.files');
    return {
      files: rows.map((row) => ({ ...toInfo(row), ownerId: row.owner_id })),
      total: Number(counted.rows[0]?.n ?? 0),
    };
  }

  async sweep(olderThanMs = SWEEP_AFTER_MS): Promise<number> {
    return sweepLeftovers(this.#db, this.store, olderThanMs);
  }

  /**
   * Checks the files of a delegated read grant (`files.read` of an enqueue) and pins each to
   * its current content generation: 1 to 16 distinct existing files, together at most
   * `limits.fileGrant.totalMaxBytes` (`LIMIT_EXCEEDED`, `FILE_NOT_FOUND`).
   */
  pinGrant(read: readonly string[]): Promise<GrantedFile[]> {
    return pinFileGrant(this.#db, read);
  }

  /**
   * Sets how {@link FileService.checkGrantedRead} learns whether the user who delegated a grant
   * still has access to the app. The broker sets it once sign-in has started (the files start
   * before it); without it a grant ends only by expiry, deletion and replacement.
   */
  useDelegatorAccess(access: DelegatorAccess): void {
    this.#delegatorAccess = access;
  }

  /**
   * Checks a read of `ref` by an invocation that carries `grant` (a no-op without one, and for
   * files outside it). The grant must not have expired nor its delegator lost access to the app
   * (`PERMISSION_DENIED`), and a granted file must still exist (`FILE_NOT_FOUND`), at its pinned
   * generation (`FILE_INPUT_CHANGED`).
   */
  async checkGrantedRead(grant: FileGrant | undefined, ref: string): Promise<void> {
    if (grant) {
      await checkGrantedRead(this.#db, grant, ref, this.#clock.now(), this.#delegatorAccess);
    }
  }

  async #find(ref: string): Promise<FileRow> {
    if (typeof ref !== 'string' || !FILE_ID.test(ref)) throw notFound(String(ref));
    const { rows } = await this.#db.query<FileRow>('SELECT * FROM platform.files WHERE id = $1', [
      ref,
    ]);
    if (!rows[0]) throw notFound(ref);
    return rows[0];
  }
}
