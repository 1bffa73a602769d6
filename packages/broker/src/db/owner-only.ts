import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes `path` and everything under it readable and writable by its owner only: folders 0700,
 * files 0600 (symbolic links are left as they are). The embedded database's files hold every
 * row and the sign-in signing keys; PGlite writes them with the modes of the snapshot tarball or
 * of the process's umask, and a data directory may be older than this rule. Paths that vanish
 * meanwhile are skipped.
 */
export async function restrictToOwner(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (!info || info.isSymbolicLink()) return;
  const wanted = info.isDirectory() ? 0o700 : 0o600;
  if ((info.mode & 0o777) !== wanted) await chmod(path, wanted).catch(ignoreGone);
  if (!info.isDirectory()) return;
  const names = await readdir(path).catch(() => [] as string[]);
  await Promise.all(names.map((name) => restrictToOwner(join(path, name))));
}

function ignoreGone(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
