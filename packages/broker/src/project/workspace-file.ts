import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

/** The file that names an organisation and lists its app folders. */
export const WORKSPACE_FILE = 'platform-workspace.yaml';

/** Most apps one workspace lists (each takes a port of its own). */
export const MAX_WORKSPACE_APPS = 20;

/** A workspace as `platform-workspace.yaml` describes it. */
export interface WorkspaceFile {
  /** The folder of the file: it holds the organisation's central store. */
  readonly dir: string;
  readonly organisation: string;
  /** The app folders, absolute, in the order listed. */
  readonly appDirs: readonly string[];
}

/** A `platform-workspace.yaml` that cannot be used; `problems` names each fault. */
export class WorkspaceFileError extends Error {
  override readonly name = 'WorkspaceFileError';
  readonly problems: readonly string[];

  constructor(file: string, problems: readonly string[]) {
    super(`${file}: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

const KEYS = new Set(['organisation', 'apps']);

/**
 * Reads `<dir>/platform-workspace.yaml`:
 *
 * ```yaml
 * organisation: Acme        # 1-100 characters
 * apps:                     # 1-20 folders, relative to this file, each with a platform.yaml
 *   - apps/notes
 *   - apps/crm
 * ```
 *
 * Throws {@link WorkspaceFileError} naming every fault (a missing file, YAML that does not
 * parse, an unknown key, a folder listed twice or without a `platform.yaml`).
 */
export async function readWorkspaceFile(dir: string): Promise<WorkspaceFile> {
  const root = resolve(dir);
  const file = join(root, WORKSPACE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new WorkspaceFileError(file, [
      `no such file; create it with "organisation:" and the "apps:" folders`,
    ]);
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new WorkspaceFileError(file, [`not valid YAML: ${(error as Error).message}`]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WorkspaceFileError(file, ['must be a mapping with "organisation" and "apps"']);
  }
  const problems: string[] = [];
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!KEYS.has(key)) problems.push(`unknown key "${key}" (expected organisation, apps)`);
  }
  const organisation = fields.organisation;
  if (typeof organisation !== 'string' || organisation.trim() === '' || organisation.length > 100) {
    problems.push('"organisation" must be a name of 1 to 100 characters');
  }
  const apps = fields.apps;
  const appDirs: string[] = [];
  if (!Array.isArray(apps) || apps.length === 0 || apps.length > MAX_WORKSPACE_APPS) {
    problems.push(`"apps" must list 1 to ${MAX_WORKSPACE_APPS} app folders`);
  } else {
    for (const [i, entry] of apps.entries()) {
      if (typeof entry !== 'string' || entry.trim() === '') {
        problems.push(`apps[${i}] must be a folder path`);
        continue;
      }
      const appDir = resolve(root, entry);
      if (appDirs.includes(appDir)) {
        problems.push(`apps[${i}] (${entry}) is listed twice`);
        continue;
      }
      appDirs.push(appDir);
      if (!(await isFile(join(appDir, 'platform.yaml')))) {
        problems.push(`apps[${i}] (${entry}) has no platform.yaml`);
      }
    }
  }
  if (problems.length > 0) throw new WorkspaceFileError(file, problems);
  return { dir: root, organisation: (organisation as string).trim(), appDirs };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
