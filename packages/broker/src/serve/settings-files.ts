import { readFile, stat } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The config file's settings, or the one line that says why it cannot be read. */
export async function readConfigFile(path: string): Promise<Record<string, unknown> | string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `--config: cannot read ${path} (${code ?? 'unreadable'}).`;
  }
  let data: unknown;
  try {
    data = ['.yaml', '.yml'].includes(extname(path)) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    return `--config: ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return `--config: ${path} must hold an object of settings.`;
  }
  return data as Record<string, unknown>;
}

/** Why the credential key file cannot serve: wrong size, readable by others, or no folder. */
export async function keyFileProblem(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return folderProblem(dirname(path), 'its folder');
  if (!info.isFile()) return `${path} is not a file.`;
  if (info.size !== 32) return `${path} is not a 32-byte key.`;
  if ((info.mode & 0o077) !== 0) return `${path} is readable by others; chmod 600 it.`;
  return undefined;
}

/** Why `path` is not a folder the service can use (it may not exist yet: it is made). */
export async function folderProblem(path: string, what = ''): Promise<string | undefined> {
  const label = what ? `${what} ${path}` : path;
  const info = await stat(path).catch(() => undefined);
  if (info !== undefined) return info.isDirectory() ? undefined : `${label} is not a folder.`;
  // A missing folder is made at start, with its parents, below the nearest one that exists.
  let parent = dirname(path);
  for (;;) {
    const found = await stat(parent).catch(() => undefined);
    if (found !== undefined) {
      return found.isDirectory() ? undefined : `${label} lies under ${parent}, which is a file.`;
    }
    if (dirname(parent) === parent) return `${label} has no existing folder above it.`;
    parent = dirname(parent);
  }
}
