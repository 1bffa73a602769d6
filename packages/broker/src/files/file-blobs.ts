import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

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
   * renamed into place in one step.
   */
  async write(fileId: string, generation: number, data: Uint8Array): Promise<void> {
    const tmpDir = join(this.root, '.tmp');
    await mkdir(tmpDir, { recursive: true });
    await mkdir(join(this.root, fileId), { recursive: true });
    const temp = join(tmpDir, `${fileId}.${generation}.${randomBytes(6).toString('hex')}`);
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, this.pathOf(fileId, generation));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** The bytes of one generation. */
  read(fileId: string, generation: number): Promise<Buffer> {
    return readFile(this.pathOf(fileId, generation));
  }

  /** Deletes one generation (missing is fine). */
  async removeGeneration(fileId: string, generation: number): Promise<void> {
    await rm(this.pathOf(fileId, generation), { force: true });
  }

  /** Deletes every generation of a file. */
  async removeFile(fileId: string): Promise<void> {
    await rm(join(this.root, fileId), { recursive: true, force: true });
  }
}
