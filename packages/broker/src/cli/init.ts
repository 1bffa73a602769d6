import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseManifest } from '@platform/schema/manifest';
import { renderRegisterTypes, TYPES_FILE } from '../project/register-types.ts';
import { INSTALLED_SCHEMA_PATH, STARTER_PATHS, starterApp } from './init-files.ts';
import { defineCommand, exitCodes } from './io.ts';

/**
 * Entries a folder may already hold for `platform init`: version control, editor and OS
 * bookkeeping, and the README and licence a new repository is often created with. Init writes
 * none of them except a README, and only where there is none, so nothing is overwritten.
 */
const HARMLESS =
  /^(?:\.git|\.gitattributes|\.hg|\.svn|\.DS_Store|Thumbs\.db|desktop\.ini|\.idea|\.vscode|LICEN[CS]E(?:\..*)?|COPYING(?:\..*)?|README(?:\..*)?)$/i;

const usage = `Usage: platform init [dir]

Writes a small working app into <dir> (default: the current directory, created if missing):
platform.yaml, one public Function (functions/hello), a migration with a table and its
row-level security policies, a page in public/ that calls the Function with @platform/browser,
tsconfig.json, ${TYPES_FILE}, .gitignore, package.json and a README.md with the next steps.
platform dev <dir> serves it at once. npm create @platform/app [dir] does the same.

<dir> must be empty, apart from .git, .gitattributes, .hg, .svn, editor folders (.idea, .vscode),
OS files (.DS_Store, Thumbs.db, desktop.ini), README* and LICENSE*/COPYING*.

Options:
  -h, --help   Show this help.`;

/** An npm package name for the app from its folder name (`my-app` when nothing usable is left). */
function packageName(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '')
    .slice(0, 214);
  return name === '' ? 'my-app' : name;
}

/** Reads a `package.json`, or `undefined` when there is none or it is not JSON. */
async function packageJsonIn(dir: string): Promise<Record<string, unknown> | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * The root of the SDK's own repository when `dir` lies inside it: the nearest folder above whose
 * npm workspaces include `@platform/broker`. There the app resolves the packages from the
 * repository's workspaces, and an `npm install` in the app would ask the registry for versions
 * not yet published.
 */
async function sdkRepositoryAbove(dir: string): Promise<string | undefined> {
  for (let at = dirname(dir); ; at = dirname(at)) {
    const workspaces = (await packageJsonIn(at))?.workspaces;
    if (Array.isArray(workspaces)) {
      for (const workspace of workspaces) {
        if (typeof workspace !== 'string') continue;
        if ((await packageJsonIn(join(at, workspace)))?.name === '@platform/broker') return at;
      }
    }
    if (dirname(at) === at) return undefined;
  }
}

/** `platform init [dir]`: writes a new app. */
export const initCommand = defineCommand({
  name: 'init',
  summary: 'Create a new app (platform.yaml, a Function, a migration, a page) in a folder.',
  usage,
  options: {},
  maxPositionals: 1,
  async run({ positionals }, io) {
    const appDir = resolve(io.cwd, positionals[0] ?? '.');
    const nearby = relative(io.cwd, appDir) || '.';
    const shown = nearby.startsWith('..') ? appDir : nearby;
    let existing: string[];
    try {
      existing = await readdir(appDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') {
        io.stderr(`platform init: ${shown} is a file, not a folder.`);
        return exitCodes.failed;
      }
      if (code !== 'ENOENT') throw error;
      existing = [];
    }
    const inTheWay = existing.filter((entry) => !HARMLESS.test(entry)).sort();
    if (inTheWay.length > 0) {
      const listed = inTheWay.slice(0, 5).join(', ') + (inTheWay.length > 5 ? ', ...' : '');
      io.stderr(
        `platform init: ${shown} is not empty (${listed}). Give an empty or new folder, for example platform init my-app; only .git, README*, LICENSE* and editor or OS files may already be there.`,
      );
      return exitCodes.failed;
    }

    const repository = await sdkRepositoryAbove(appDir);
    const fromRoot = repository === undefined ? '' : relative(repository, appDir);
    const nextSteps =
      repository === undefined
        ? [...(shown === '.' ? [] : [`cd ${shown}`]), 'npm install', 'npx platform dev']
        : [`npx platform dev ${fromRoot}`];
    const files: Record<string, string> = {
      ...starterApp({
        name: packageName(appDir),
        nextSteps:
          repository === undefined
            ? ['npm install', 'npx platform dev']
            : [`# from the SDK repository's root:`, ...nextSteps],
        // Inside the repository the schema is its own workspace's copy; elsewhere, the copy
        // npm install puts into the app.
        schemaPath:
          repository === undefined
            ? INSTALLED_SCHEMA_PATH
            : relative(appDir, join(repository, 'packages/schema/manifest.schema.json')),
      }),
    };
    // A README already in the folder is the user's: it stays, and the next steps are printed.
    if (existing.some((entry) => /^README(?:\..*)?$/i.test(entry))) delete files['README.md'];
    const { manifest } = parseManifest(files['platform.yaml'] ?? '');
    if (manifest === undefined)
      throw new Error('platform init: the starter platform.yaml is invalid');
    files[TYPES_FILE] = renderRegisterTypes(manifest, appDir, join(appDir, TYPES_FILE));

    // Every path is new (the folder had none of them); on a failure remove what was written, so
    // a second try meets the same folder as the first.
    const created: string[] = [];
    let madeDir = false;
    try {
      madeDir = (await mkdir(appDir, { recursive: true })) !== undefined;
      for (const [path, text] of Object.entries(files)) {
        const top = path.split('/')[0] as string;
        const target = join(appDir, path);
        if (!created.includes(top)) created.push(top);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, text, { flag: 'wx' });
      }
    } catch (error) {
      await (madeDir
        ? rm(appDir, { recursive: true, force: true })
        : Promise.all(
            created.map((top) => rm(join(appDir, top), { recursive: true, force: true })),
          ));
      io.stderr(`platform init: could not write ${shown}: ${(error as Error).message}`);
      return exitCodes.failed;
    }

    const written = [...STARTER_PATHS, TYPES_FILE].filter((path) => path in files);
    const where =
      repository === undefined
        ? 'Next:'
        : `Next, from the SDK repository's root (${repository}), which brings the @platform packages (no npm install in the app):`;
    io.stdout(
      `Created a new app in ${shown}: ${written.join(', ')}.\n\n${where}\n${nextSteps.map((step) => `  ${step}`).join('\n')}`,
    );
    return exitCodes.ok;
  },
});
