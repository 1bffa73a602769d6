// `platform init`: the new app it writes validates, `platform dev` serves it at once (the page,
// its bundled script and the Function over HTTP), and it refuses a folder that already holds files.
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { validateApp } from '../../src/cli/validate.ts';
import { main } from '../../src/index.ts';
import { brokerPackage } from '../../src/kernel/broker-package.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { exitOf, root, spawnPlatform, waitForUrl } from './helpers.ts';

const createAppBin = join(root, 'packages/create-app/bin/create-app.js');
const run = (file: string, args: string[], cwd: string) => promisify(execFile)(file, args, { cwd });

/** Runs `platform ...argv` in-process in `cwd` and captures its output. */
async function platform(argv: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: (l) => out.push(l), stderr: (l) => err.push(l), cwd };
  const code = await main(argv, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

let work: { path: string; remove: () => Promise<void> };
let child: ChildProcess | undefined;

beforeAll(async () => {
  work = await tempDir('platform-init-');
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await work?.remove();
});

describe('platform init', () => {
  it('writes an app that validates and platform dev serves at once', async () => {
    const made = await platform(['init', 'my-app'], work.path);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    expect(made.stdout).toContain('cd my-app\n  npm install\n  npx platform dev');
    const app = join(work.path, 'my-app');
    expect((await readdir(app)).sort()).toEqual([
      '.gitignore',
      'README.md',
      'functions',
      'migrations',
      'package.json',
      'platform-env.gen.d.ts',
      'platform.yaml',
      'public',
      'tsconfig.json',
    ]);
    expect(await readFile(join(app, 'platform.yaml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\.\/node_modules\/@platform\/schema\/manifest\.schema\.json\n/,
    );
    expect(await readFile(join(app, '.gitignore'), 'utf8')).toMatch(/^\.platform\/$/m);
    const pkg = JSON.parse(await readFile(join(app, 'package.json'), 'utf8'));
    const versionOf = async (pkgDir: string) =>
      (
        JSON.parse(
          await readFile(new URL(`../../../${pkgDir}/package.json`, import.meta.url), 'utf8'),
        ) as { version: string }
      ).version;
    // The SDK packages at the SDK's version, the CLI at its own.
    const sdk = await versionOf('server');
    expect(pkg).toMatchObject({
      name: 'my-app',
      dependencies: { '@platform/browser': sdk, '@platform/server': sdk },
      devDependencies: { '@platform/broker': await versionOf('broker') },
    });
    // The types file is what `platform types` would write: `--check` agrees.
    expect((await platform(['types', app, '--check'], work.path)).code).toBe(0);
    const report = await validateApp(app);
    expect(report).toMatchObject({ ok: true, errors: [], warnings: [] });

    child = spawnPlatform(['dev', app, '--port', '0']);
    const lines: string[] = [];
    const url = await waitForUrl(child, lines);
    expect(lines.some((line) => /ready in \d+ ms \(1 Functions?\)/.test(line))).toBe(true);
    expect(await (await fetch(url)).text()).toContain('<title>Hello</title>');
    const script = await fetch(`${url}/app.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('functions');
    const answer = await fetch(`${url}/_platform/api/functions/hello`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      result: { message: 'Hello, Ada!', signedIn: false, greetings: ['Welcome to your new app.'] },
    });
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
  });

  it('writes a package.json that installs without warnings and a README with the next steps', async () => {
    const app = join(work.path, 'my-app');
    const pkg = JSON.parse(await readFile(join(app, 'package.json'), 'utf8'));
    // npm 11 warns about, and will refuse, install scripts the app's package.json does not allow.
    expect(pkg.allowScripts).toEqual({ deno: true, esbuild: true });
    expect(pkg.engines).toEqual({ node: brokerPackage.engines.node });
    const readme = await readFile(join(app, 'README.md'), 'utf8');
    expect(readme).toContain('# my-app');
    expect(readme).toContain('Node.js 24');
    expect(readme).toContain('npm install\nnpx platform dev');
  });

  it('npm create @platform/app (the create-app bin) writes the same app as platform init', async () => {
    const made = await run(
      process.execPath,
      ['--conditions=@platform/source', createAppBin, 'created'],
      work.path,
    );
    expect(made.stdout).toContain('Created a new app in created');
    const starter = join(work.path, 'my-app');
    const created = join(work.path, 'created');
    for (const file of ['platform.yaml', 'functions/hello/index.ts', 'public/app.ts']) {
      expect(await readFile(join(created, file), 'utf8')).toBe(
        await readFile(join(starter, file), 'utf8'),
      );
    }
    expect(JSON.parse(await readFile(join(created, 'package.json'), 'utf8'))).toMatchObject({
      name: 'created',
      devDependencies: { '@platform/broker': brokerPackage.version },
    });
  });

  it('inside the SDK repository, says to run the app from its root instead of npm install', async () => {
    // A repository like the SDK's: npm workspaces, one of them @platform/broker.
    const repo = join(work.path, 'sdk');
    await mkdir(join(repo, 'packages/broker'), { recursive: true });
    await mkdir(join(repo, 'packages/schema'), { recursive: true });
    await writeFile(
      join(repo, 'package.json'),
      JSON.stringify({ name: 'sdk', workspaces: ['packages/schema', 'packages/broker'] }),
    );
    await writeFile(
      join(repo, 'packages/broker/package.json'),
      JSON.stringify({ name: '@platform/broker' }),
    );
    await mkdir(join(repo, 'apps'));
    const made = await platform(['init', 'mine'], join(repo, 'apps'));
    expect(made.code).toBe(0);
    expect(made.stdout).not.toContain('npm install\n');
    expect(made.stdout).toContain('(no npm install in the app)');
    expect(made.stdout).toContain('  npx platform dev apps/mine');
    const app = join(repo, 'apps/mine');
    expect(await readFile(join(app, 'README.md'), 'utf8')).toContain('npx platform dev apps/mine');
    // The editor schema is the repository's own copy, which exists without an install.
    expect(await readFile(join(app, 'platform.yaml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/\.\.\/packages\/schema\/manifest\.schema\.json\n/,
    );
  });

  it('writes into the current folder when it holds only harmless entries', async () => {
    const here = join(work.path, 'repo');
    await mkdir(join(here, '.git'), { recursive: true });
    await writeFile(join(here, 'README.md'), '# mine\n');
    expect((await platform(['init'], here)).code).toBe(0);
    // The user's README stays as it was; init writes none of its own there.
    expect(await readFile(join(here, 'README.md'), 'utf8')).toBe('# mine\n');
    expect((await validateApp(here)).ok).toBe(true);
  });

  it('refuses a folder with other files, writing nothing', async () => {
    const busy = join(work.path, 'busy');
    await mkdir(busy);
    await writeFile(join(busy, 'notes.txt'), 'keep me');
    const refused = await platform(['init', 'busy'], work.path);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('platform init: busy is not empty (notes.txt).');
    expect(await readdir(busy)).toEqual(['notes.txt']);
    const file = await platform(['init', 'busy/notes.txt'], work.path);
    expect(file).toMatchObject({ code: 1 });
    expect(file.stderr).toContain('is a file, not a folder');
    expect((await platform(['init', 'a', 'b'], work.path)).code).toBe(2);
  });
});
