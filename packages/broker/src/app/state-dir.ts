import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** `<dir>/.platform`, where the broker keeps an app's or a workspace's state. */
export function stateDirOf(dir: string): string {
  return join(dir, '.platform');
}

/**
 * Makes `<dir>/.platform`, where the broker keeps an app's or a workspace's state, and returns
 * its path. It is the owner's only (databases, files, secrets, the dev token), also when it was
 * made before that rule, and everything in it stays out of git.
 */
export async function ensureStateDir(dir: string): Promise<string> {
  const stateDir = stateDirOf(dir);
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await chmod(stateDir, 0o700);
  await writeFile(join(stateDir, '.gitignore'), '*\n');
  return stateDir;
}

/** Makes `stateDir` itself the broker's state folder (mode 700), wherever it is. */
export async function ensureOwnStateDir(stateDir: string): Promise<string> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await chmod(stateDir, 0o700);
  return stateDir;
}
