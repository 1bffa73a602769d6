import { randomBytes } from 'node:crypto';
import {
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
} from 'node:fs/promises';
import { join } from 'node:path';
import { PlatformError } from '@platform/errors';

/**
 * File contents on disk: `<root>/<fileId>/<generation>`. Each generation gets a new path, so a
 * write never overwrites bytes somebody may be reading, and a write that fails before its
 * database row commits leaves no visible file (only a temp file or an orphan the sweep removes).
 */
export class FileBlobs {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** The path of one generation's content. */
  pathOf(fileId: string, generation: number): string {
    return join(this.root, fileId, String(generation));
  }

  /**
   * Writes `data` as `fileId`'s `generation`: first to a temp file that is flushed to disk, then
   * renamed into place in one step. On any failure the temp file is removed, and the file's
   * folder too when this write made it; a full, failing or read-only disk (`ENOSPC`, `EDQUOT`,
   * `EIO`, `EROFS`, `EACCES`, `EPERM`) throws the retryable `STORAGE_UNAVAILABLE`.
   */
  async write(fileId: string, generation: number, data: Uint8Array): Promise<void> {
    const tmpDir = join(this.root, '.tmp');
    const fileDir = join(this.root, fileId);
    const temp = join(tmpDir, `${fileId}.${generation}.${randomBytes(6).toString('hex')}`);
    let madeDir = false;
    try {
      await mkdir(tmpDir, { recursive: true });
      madeDir = (await mkdir(fileDir, { recursive: true })) !== undefined;
      const handle = await open(temp, 'wx');
      try {
        await this.fill(handle, data);
      } finally {
        await handle.close();
      }
      await rename(temp, this.pathOf(fileId, generation));
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      // Only an empty folder goes: a replace's folder holds the current generation.
      if (madeDir) await rmdir(fileDir).catch(() => undefined);
      throw storageError(error);
    }
  }

  /**
   * Puts `data` into the open temp file and flushes it to disk: the step that meets a full disk
   * (tests replace it to make that happen).
   */
  async fill(handle: FileHandle, data: Uint8Array): Promise<void> {
    await handle.writeFile(data);
    await handle.sync();
  }

  /** The bytes of one generation. */
  read(fileId: string, generation: number): Promise<Buffer> {
    return readFile(this.pathOf(fileId, generation));
  }

  /** Deletes one generation (missing is fine). */
  async removeGeneration(fileId: string, generation: number): Promise<void> {
    await rm(this.pathOf(fileId, generation), { force: true });
  }

  /**
   * Removes what interrupted writes left behind (a full disk, a crash): temp files and empty
   * file folders untouched for `olderThanMs`, so that writes in flight (another broker on the
   * same folder with PostgreSQL) keep theirs. Resolves to how many were removed.
   */
  async sweep(olderThanMs = 10 * 60_000): Promise<number> {
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

  /** Deletes every generation of a file. */
  async removeFile(fileId: string): Promise<void> {
    await rm(join(this.root, fileId), { recursive: true, force: true });
  }
}

/** Why a disk refuses a write, by the system's error code: the reason in the message. */
const storageReasons: Readonly<Record<string, string>> = {
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
function storageError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = code === undefined ? undefined : storageReasons[code];
  if (code === undefined || reason === undefined) return error;
  return new PlatformError({
    code: 'STORAGE_UNAVAILABLE',
    message: `The file could not be stored: ${reason}. Nothing was kept; try again later.`,
    details: { reason: code },
    cause: error,
  });
}
