import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { FileHost } from '@platform/schema/manifest';

/**
 * The Node implementation of the manifest validator's file access. `exists` also requires the
 * exact letter case of the file name, because bundling is case-sensitive even on file systems
 * that are not.
 */
export const nodeFileHost: FileHost = {
  async readFile(path) {
    return readFile(path, 'utf8').catch(() => undefined);
  },
  async exists(path) {
    const info = await stat(path).catch(() => undefined);
    if (info === undefined || !info.isFile()) return false;
    const names = await readdir(dirname(path)).catch(() => [] as string[]);
    return names.includes(basename(path));
  },
};
