import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseManifest } from '@platform/schema/manifest';
import { renderRegisterTypes, TYPES_FILE } from '../project/register-types.ts';
import { STARTER_PATHS, starterApp } from './init-files.ts';
import { defineCommand, exitCodes } from './io.ts';

/**
 * Entries a folder may already hold for `platform init`: version control, editor and OS
 * bookkeeping, and the README and licence a new repository is often created with. None of them
 * is a file init writes, so nothing is overwritten.
 */
const HARMLESS =
  /^(?:\.git|\.gitattributes|\.hg|\.svn|\.DS_Store|Thumbs\.db|desktop\.ini|\.idea|\.vscode|LICEN[CS]E(?:\..*)?|COPYING(?:\..*)?|README(?:\..*)?)$/i;

const usage = `Usage: platform init [dir]

Writes a small working app into <dir> (default: the current directory, created if missing):
platform.yaml, one public Function (functions/hello), a migration with a table and its
row-level security policies, a page in public/ that calls the Function with @platform/browser,
tsconfig.json, ${TYPES_FILE}, .gitignore and package.json. platform dev <dir> serves it at once.

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

    const files: Record<string, string> = { ...starterApp({ name: packageName(appDir) }) };
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

    const cd = shown === '.' ? '' : `  cd ${shown}\n`;
    io.stdout(
      `Created a new app in ${shown}: ${[...STARTER_PATHS, TYPES_FILE].join(', ')}.\n\nNext:\n${cd}  npm install\n  npx platform dev`,
    );
    return exitCodes.ok;
  },
});
