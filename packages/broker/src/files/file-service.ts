import { createHash } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { RouteResponse, runtimeContract } from '@platform/schema/contract';
import type { Database } from '../db/database.ts';
import type { FileGrant, GrantedFile } from '../functions/invocation-tokens.ts';
import type { Caller } from '../kernel/caller.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import { FileBlobs } from './file-blobs.ts';
import { checkGrantedRead, pinFileGrant } from './file-grants.ts';

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

/** How to build a {@link FileService}. */
export interface FileServiceOptions {
  /**
   * The clock delegated grants expire by: the one the job service stamps them with.
   * @default the system clock
   */
  readonly clock?: Clock | undefined;
}

/**
 * The `files` member of the handler context. Contents live on disk under `.platform/files`,
 * metadata and generations in the database. Access rules (the spec leaves them open; ours):
 * a file id is an unguessable capability, so whoever holds a ref may read the file; uploading
 * needs a user or the system (never anonymous, spec 5.1.5); replacing and removing need the
 * uploader or the system. Every write is atomic: bytes reach their final path before the row
 * commits, and a failed commit removes them again. It also answers for delegated read grants
 * (`files: { read }` of an enqueue): which generations a grant pins, and whether a read under
 * a grant may proceed.
 *
 * @example
 * ```ts
 * const files = new FileService(db, '.platform/files');
 * const info = await files.upload(caller, { data, name: 'a.png', contentType: 'image/png' });
 * ```
 */
export class FileService {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly blobs: FileBlobs;

  constructor(db: Database, root: string, options: FileServiceOptions = {}) {
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
    this.blobs = new FileBlobs(root);
  }

  /**
   * Stores a new file (generation 1). `options.id` is an id from `newId('file')` chosen ahead,
   * for a caller that records it before the bytes exist (so that a crash mid-write leaves a
   * record of what to {@link FileService.discard}).
   */
  async upload(
    caller: Caller,
    input: { data: Uint8Array; name: string; contentType: string },
    options: { readonly id?: string | undefined } = {},
  ): Promise<FileInfo> {
    requireWriter(caller);
    checkSize(input.data);
    const id = options.id ?? newId('file');
    if (!FILE_ID.test(id)) {
      throw new PlatformError({
        code: 'INTERNAL',
        message: 'A file id chosen ahead must come from newId("file").',
      });
    }
    const sha = sha256(input.data);
    await this.blobs.write(id, 1, input.data);
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
            input.data.byteLength,
            sha,
          ],
        );
        await tx.query(
          'INSERT INTO platform.file_generations (file_id, generation, size, sha256) VALUES ($1, 1, $2, $3)',
          [id, input.data.byteLength, sha],
        );
        return rows[0]!;
      });
      return toInfo(row);
    } catch (error) {
      await this.blobs.removeFile(id);
      throw error;
    }
  }

  /** Metadata of a file. */
  async info(_caller: Caller, ref: string): Promise<FileInfo> {
    return toInfo(await this.#find(ref));
  }

  /** The bytes and metadata of the current generation. */
  async download(_caller: Caller, ref: string): Promise<{ file: FileInfo; data: Buffer }> {
    const row = await this.#find(ref);
    try {
      return { file: toInfo(row), data: await this.blobs.read(row.id, row.generation) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(ref);
      throw error;
    }
  }

  /** New content (and optionally a new name or type) as a new generation, same ref. */
  async replace(
    caller: Caller,
    ref: string,
    input: { data: Uint8Array; name?: string | undefined; contentType?: string | undefined },
  ): Promise<FileInfo> {
    requireWriter(caller);
    checkSize(input.data);
    const current = await this.#find(ref);
    requireOwner(caller, current);
    const generation = current.generation + 1;
    const sha = sha256(input.data);
    await this.blobs.write(current.id, generation, input.data);
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
            input.data.byteLength,
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
          [current.id, generation, input.data.byteLength, sha],
        );
        return rows[0];
      });
    } catch (error) {
      await this.blobs.removeGeneration(current.id, generation);
      throw error;
    }
    await this.blobs.removeGeneration(current.id, current.generation);
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
    });
    await this.blobs.removeFile(current.id);
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
    });
    for (const id of valid) await this.blobs.removeFile(id);
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
   * Checks a read of `ref` by an invocation that carries `grant` (a no-op without one, and for
   * files outside it). A granted file must still exist (`FILE_NOT_FOUND`), at its pinned
   * generation (`FILE_INPUT_CHANGED`), and the grant must not have expired
   * (`PERMISSION_DENIED`).
   */
  async checkGrantedRead(grant: FileGrant | undefined, ref: string): Promise<void> {
    if (grant) await checkGrantedRead(this.#db, grant, ref, this.#clock.now());
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

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function checkSize(data: Uint8Array): void {
  const max = limits.files.maxBytes;
  if (data.byteLength > max) {
    throw new PlatformError({
      code: 'FILE_TOO_LARGE',
      message: `Files are limited to ${max} bytes; this one has ${data.byteLength}.`,
      details: { size: data.byteLength, max },
    });
  }
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
