import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Longest app id: it is also a host name label (`<appId>.localhost`), which may have 63. */
const MAX_APP_ID = 40;

/** What an app id looks like: a DNS label of lower-case letters, digits and inner hyphens. */
export const APP_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** Path of the file that keeps an app's id: `<appDir>/.platform/app.json`. */
export const appIdPath = (appDir: string): string => join(appDir, '.platform', 'app.json');

/**
 * The app id a folder name gives: lower-cased, every run of other characters than `a-z0-9` one
 * `-`, no hyphen at either end, at most 40 characters; `app` when nothing is left.
 *
 * @example
 * ```ts
 * deriveAppId('My Notes_v2'); // 'my-notes-v2'
 * ```
 */
export function deriveAppId(folderName: string): string {
  const slug = folderName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_APP_ID)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'app' : slug;
}

/**
 * The app's id, stable across restarts: read from `.platform/app.json`, or derived from the
 * folder's name ({@link deriveAppId}) and written there on the first start, so renaming the
 * folder later does not change it. `taken` are ids other apps of the same workspace already
 * hold: a derived id that collides gets `-2`, `-3`, ... A stored id is kept as it is (a stored
 * id that collides is the workspace's problem to report, not to rename silently).
 */
export async function loadAppId(
  appDir: string,
  taken: ReadonlySet<string> = new Set(),
): Promise<string> {
  const stored = await readStoredAppId(appDir);
  if (stored !== undefined) return stored;
  const base = deriveAppId(basename(appDir));
  let id = base;
  for (let n = 2; taken.has(id); n++)
    id = `${base.slice(0, MAX_APP_ID - String(n).length - 1)}-${n}`;
  await mkdir(join(appDir, '.platform'), { recursive: true, mode: 0o700 });
  await writeFile(appIdPath(appDir), `${JSON.stringify({ appId: id }, null, 2)}\n`);
  return id;
}

/** The id in `.platform/app.json`; `undefined` when there is no such file or no usable id in it. */
async function readStoredAppId(appDir: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(appIdPath(appDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = (JSON.parse(text) as { appId?: unknown } | null)?.appId;
    return typeof value === 'string' && APP_ID_PATTERN.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
