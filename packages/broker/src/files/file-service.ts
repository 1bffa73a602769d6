import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { RouteResponse, runtimeContract } from '@platform/schema/contract';
import type { Database } from '../db/database.ts';
import type { FileGrant, GrantedFile } from '../functions/invocation-tokens.ts';
import type { Caller } from '../kernel/caller.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import { checkGrantedRead, type DelegatorAccess, pinFileGrant } from './file-grants.ts';
import type { FileStore } from './file-store.ts';
import { FolderFileStore } from './folder-store.ts';

type Contract = typeof runtimeContract;

/** Metadata of a managed file: the runtime contract's `fileInfoSchema`. */
export type FileInfo = Readonly<RouteResponse<Contract['filesInfo']>['file']>;

interface FileRow {
  id: string;
  owner_id: string | null;
  name: string;
  content_type: string;
  size: number;
  generation: number;
  created_at: Date;
  updated_at: Date;
}

const toInfo = (row: FileRow): FileInfo => ({
  ref: row.id,
  id: row.id,
  name: row.name,
  contentType: row.content_type,
  size: Number(row.size),
  generation: row.generation,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

const notFound = (ref: string) =>
  new PlatformError({
    code: 'FILE_NOT_FOUND',
    message: 'No file with this reference exists.',
    details: { ref },
  });

/**
 * A file's content as the service takes it: bytes in memory (a Function's call), or a stream
 * that is stored as it arrives (an HTTP upload), never held whole.
 */
export type FileContent = Uint8Array | AsyncIterable<Uint8Array>;

/** Bytes of a generation written this long ago and still without their row are an orphan. */
const SWEEP_AFTER_MS = 10 * 60_000;

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
    // The replace has happened; bytes the store keeps now (it is down) go with the sweep.
    await this.store.removeGeneration(current.id, current.generation).catch(() => undefined);
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
    await this.#removeBytes(current.id);
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

  /** Deletes a file's bytes and its pending entry; a store that is down leaves both to the sweep. */
  async #removeBytes(id: string): Promise<void> {
    if (
      await this.store.removeFile(id).then(
        () => true,
        () => false,
      )
    )
      await this.#unpend(id);
  }

  async #unpend(id: string): Promise<void> {
    await this.#db
      .query('DELETE FROM platform.file_pending WHERE file_id = $1', [id])
      .catch(() => undefined);
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
  async sweep(olderThanMs = SWEEP_AFTER_MS): Promise<number> {
    let removed = await this.store.sweep(olderThanMs);
    const { rows: pending } = await this.#db.query<{ file_id: string; kept: boolean }>(
      `SELECT p.file_id, f.id IS NOT NULL AS kept FROM platform.file_pending p
         LEFT JOIN platform.files f ON f.id = p.file_id
        WHERE p.created_at < now() - make_interval(secs => $1)`,
      [olderThanMs / 1000],
    );
    for (const { file_id: id, kept } of pending) {
      if (!kept) {
        await this.store.removeFile(id);
        removed++;
      }
      await this.#unpend(id);
    }
    const before = Date.now() - olderThanMs;
    const old: { fileId: string; generation: number }[] = [];
    for await (const stored of this.store.list()) {
      if (stored.modifiedAt.getTime() < before && FILE_ID.test(stored.fileId)) old.push(stored);
    }
    for (let i = 0; i < old.length; i += 500) {
      const batch = old.slice(i, i + 500);
      const { rows } = await this.#db.query<{ id: string; generation: number }>(
        'SELECT id, generation FROM platform.files WHERE id = ANY($1::text[])',
        [batch.map((c) => c.fileId)],
      );
      const current = new Map(rows.map((row) => [row.id, row.generation]));
      for (const stored of batch) {
        const generation = current.get(stored.fileId);
        if (generation === undefined || stored.generation === generation) continue;
        await this.store.removeGeneration(stored.fileId, stored.generation);
        removed++;
      }
    }
    return removed;
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

// What `newId('file')` makes; also keeps a discarded id from naming a path outside the folder.
const FILE_ID = /^file_[0-9a-f]{32}$/;

/**
 * The content as the body a store reads, counting and hashing the bytes as they pass and
 * throwing `FILE_TOO_LARGE` past `limits.files.maxBytes` (at once for bytes in memory, at the
 * first byte over for a stream, so a store never keeps a file over the limit).
 */
function measured(data: FileContent): {
  body: AsyncIterable<Uint8Array>;
  result(): { size: number; sha: string };
} {
  const max = limits.files.maxBytes;
  if (data instanceof Uint8Array && data.byteLength > max) {
    throw new PlatformError({
      code: 'FILE_TOO_LARGE',
      message: `Files are limited to ${max} bytes; this one has ${data.byteLength}.`,
      details: { size: data.byteLength, max },
    });
  }
  const hash: Hash = createHash('sha256');
  let size = 0;
  let done = false;
  async function* body(): AsyncIterable<Uint8Array> {
    const source: AsyncIterable<Uint8Array> | Iterable<Uint8Array> =
      data instanceof Uint8Array ? [data] : data;
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > max) {
        throw new PlatformError({
          code: 'FILE_TOO_LARGE',
          message: `Files are limited to ${max} bytes.`,
          details: { max },
        });
      }
      hash.update(chunk);
      yield chunk;
    }
    done = true;
  }
  return {
    body: body(),
    result: () => {
      // A store that resolved without reading the whole body would record a wrong size.
      if (!done) throw new TypeError('The file store did not read the whole content.');
      return { size, sha: hash.digest('hex') };
    },
  };
}

// Spec 5.1.5: in public apps, file writes require a user.
function requireWriter(caller: Caller): void {
  if (caller.kind === 'anonymous') {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message: 'Writing files needs a signed-in user.',
    });
  }
}

function requireOwner(caller: Caller, row: FileRow): void {
  if (caller.kind === 'system') return;
  if (caller.kind === 'user' && row.owner_id === caller.userId) return;
  throw new PlatformError({
    code: 'PERMISSION_DENIED',
    message: 'Only the user who uploaded a file (or a system Function) may change or remove it.',
  });
}
