import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { type FileStore, type StoredGeneration, storageUnavailable } from './file-store.ts';

/**
 * File contents in a local folder: `<root>/<fileId>/<generation>`. Each generation gets a new
 * path, so a write never overwrites bytes somebody may be reading, and a write that fails before
 * its database row commits leaves no visible file (only a temp file or an orphan the sweep
 * removes). The default store, and the one `platform dev` uses.
 */
export class FolderFileStore implements FileStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  get description(): string {
    return `folder ${this.root}`;
  }

  /** The path of one generation's content. */
  pathOf(fileId: string, generation: number): string {
    return join(this.root, fileId, String(generation));
  }

  /**
   * Writes `body` as `fileId`'s `generation`: first to a temp file that is flushed to disk, then
   * renamed into place in one step. On any failure the temp file is removed, and the file's
   * folder too when this write made it; a full, failing or read-only disk (`ENOSPC`, `EDQUOT`,
   * `EIO`, `EROFS`, `EACCES`, `EPERM`) throws the retryable `STORAGE_UNAVAILABLE`.
   */
  async put(
    fileId: string,
    generation: number,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): Promise<void> {
    const tmpDir = join(this.root, '.tmp');
    const fileDir = join(this.root, fileId);
    const temp = join(tmpDir, `${fileId}.${generation}.${randomBytes(6).toString('hex')}`);
    let madeDir = false;
    try {
      await mkdir(tmpDir, { recursive: true });
      madeDir = (await mkdir(fileDir, { recursive: true })) !== undefined;
      const handle = await open(temp, 'wx');
      try {
        await this.fill(handle, body);
      } finally {
        await handle.close();
      }
      await rename(temp, this.pathOf(fileId, generation));
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      // Only an empty folder goes: a replace's folder holds the current generation.
      if (madeDir) await rmdir(fileDir).catch(() => undefined);
      throw diskError(error);
    }
  }

  /**
   * Puts the body into the open temp file as it arrives and flushes it to disk: the step that
   * meets a full disk (tests replace it to make that happen).
   */
  async fill(
    handle: FileHandle,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): Promise<void> {
    for await (const chunk of body) await handle.write(chunk);
    await handle.sync();
  }

  /** The bytes of one generation as a stream, or `undefined` when there are none. */
  async get(fileId: string, generation: number): Promise<Readable | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(fileId, generation), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    // Opened first, so a missing file is known before a response starts.
    return handle.createReadStream();
  }

  /** Deletes one generation (missing is fine). */
  async removeGeneration(fileId: string, generation: number): Promise<void> {
    await rm(this.pathOf(fileId, generation), { force: true });
  }

  /** Deletes every generation of a file. */
  async removeFile(fileId: string): Promise<void> {
    await rm(join(this.root, fileId), { recursive: true, force: true });
  }

  /** Every generation in the folder, with the time it was written. */
  async *list(): AsyncIterable<StoredGeneration> {
    for (const fileId of await readdir(this.root).catch(() => [] as string[])) {
      if (fileId === '.tmp') continue;
      for (const name of await readdir(join(this.root, fileId)).catch(() => [] as string[])) {
        const generation = Number(name);
        if (!Number.isInteger(generation) || String(generation) !== name) continue;
        const info = await stat(join(this.root, fileId, name)).catch(() => undefined);
        if (info?.isFile()) yield { fileId, generation, modifiedAt: info.mtime };
      }
    }
  }

  /**
   * Removes what interrupted writes left behind (a full disk, a crash): temp files and empty
   * file folders untouched for `olderThanMs`, so that writes in flight (another broker on the
   * same folder with PostgreSQL) keep theirs. Resolves to how many were removed.
   */
  async sweep(olderThanMs: number): Promise<number> {
    const before = Date.now() - olderThanMs;
    const old = async (path: string) =>
      ((await stat(path).catch(() => undefined))?.mtimeMs ?? Number.POSITIVE_INFINITY) < before;
    let removed = 0;
    const tmpDir = join(this.root, '.tmp');
    for (const name of await readdir(tmpDir).catch(() => [] as string[])) {
      if (!(await old(join(tmpDir, name)))) continue;
      await rm(join(tmpDir, name), { force: true });
      removed++;
    }
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      const dir = join(this.root, name);
      if (name === '.tmp' || !(await old(dir))) continue;
      // rmdir refuses a folder that holds a generation.
      if (
        await rmdir(dir).then(
          () => true,
          () => false,
        )
      )
        removed++;
    }
    return removed;
  }

  /** The folder can be written: made if missing. */
  async check(): Promise<void> {
    try {
      await mkdir(join(this.root, '.tmp'), { recursive: true });
    } catch (error) {
      throw diskError(error);
    }
  }

  close(): void {}
}

/** Why a disk refuses a write, by the system's error code: the reason in the message. */
const diskReasons: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk is full',
  EIO: 'the disk failed',
  // A read-only mount, or a folder whose owner or mode keeps the broker out.
  EROFS: 'the files folder is on a read-only file system and may not be written',
  EACCES: 'the files folder may not be written (check its owner and permissions)',
  EPERM: 'the files folder may not be written (check its owner, permissions and attributes)',
};

/**
 * A full, failing or read-only disk as the retryable `STORAGE_UNAVAILABLE` with the reason
 * (`details.reason` is the system's code); anything else unchanged.
 */
function diskError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = code === undefined ? undefined : diskReasons[code];
  if (code === undefined || reason === undefined) return error;
  return storageUnavailable('stored', reason, code, error);
}
