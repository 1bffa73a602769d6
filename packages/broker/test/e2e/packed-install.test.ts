// The packages as a user of npm gets them: each one built and packed (`npm pack`), the tarballs
// installed into an empty project outside the repository, then `platform init`, `platform
// validate`, `platform dev`, the new app's types checked by tsc, and its Function called through
// `@platform/browser` in Node. This catches files missing from `files`, wrong `exports` and
// dependencies used but not declared. The build happens in a temporary copy of the packages, so
// the checkout gets no dist/ (the suite runs from sources).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { minimumNode, nodeTooOld } from '../../src/cli/node-version.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { exitOf, root, waitForUrl } from './helpers.ts';

/** The published packages, in build order. */
const packages = ['errors', 'schema', 'server', 'browser', 'broker'] as const;

// Child processes: this Node first on PATH (npm's `#!/usr/bin/env node`, the app's scripts), and
// nothing of the npm run or the test runner that started the suite (an npm_config_* of `npm test`
// would point npm at the repository).
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD',
  ),
);
env.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
env.NO_COLOR = '1';

/** Runs a program to completion; rejects with its output when it fails. */
async function run(file: string, args: readonly string[], cwd: string) {
  try {
    return await promisify(execFile)(file, [...args], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${file} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
    );
  }
}

let work: { path: string; remove: () => Promise<void> } | undefined;
let dev: ChildProcess | undefined;

afterAll(async () => {
  if (dev && dev.exitCode === null) dev.kill('SIGKILL');
  await work?.remove();
});

it('the packed packages install into an empty project and run a new app', {
  timeout: 900_000,
}, async () => {
  work = await tempDir('platform-packed-');

  // 1. Build a copy of the packages with the repository's tools and node_modules.
  const copy = join(work.path, 'build');
  for (const name of packages) {
    const source = join(root, 'packages', name);
    await cp(source, join(copy, 'packages', name), {
      recursive: true,
      filter: (path) =>
        !['node_modules', 'dist', 'test', '.platform'].some((skip) =>
          path.startsWith(join(source, skip)),
        ),
    });
  }
  await cp(join(root, 'tsconfig.base.json'), join(copy, 'tsconfig.base.json'));
  await symlink(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const tsup = join(root, 'node_modules/tsup/dist/cli-default.js');
  for (const name of packages) {
    await run(process.execPath, [tsup], join(copy, 'packages', name));
  }

  // 2. Pack each one, as `npm publish` would.
  const tarballs = join(work.path, 'tarballs');
  await mkdir(tarballs);
  await run(
    'npm',
    ['pack', ...packages.map((name) => `./packages/${name}`), '--pack-destination', tarballs],
    copy,
  );
  const packed = (await readdir(tarballs)).filter((file) => file.endsWith('.tgz')).sort();
  expect(packed).toHaveLength(packages.length);

  // 3. Install the tarballs into an empty project outside the repository.
  const project = join(work.path, 'project');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'packed-user', private: true, type: 'module' }, null, 2)}\n`,
  );
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...packed.map((file) => join(tarballs, file)),
    ],
    project,
  );

  // 4. The `platform` bin npm linked, run with this Node, as `npx platform` would.
  const bin = join(project, 'node_modules/.bin/platform');
  const platform = (args: string[]) => run(process.execPath, [bin, ...args], project);
  const made = await platform(['init', 'hello-app']);
  expect(made.stdout).toContain('Created a new app in hello-app');
  const app = join(project, 'hello-app');
  // The CLI prints its own version line; the new app pins the SDK at the SDK's version.
  const installed = async (name: string) =>
    (
      JSON.parse(
        await readFile(join(project, 'node_modules/@platform', name, 'package.json'), 'utf8'),
      ) as { version: string }
    ).version;
  expect((await platform(['--version'])).stdout.trim()).toBe(await installed('broker'));
  const pins = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  expect(pins.dependencies['@platform/server']).toBe(await installed('server'));
  expect(pins.dependencies['@platform/browser']).toBe(await installed('browser'));
  expect(pins.devDependencies['@platform/schema']).toBe(await installed('schema'));
  expect(pins.devDependencies['@platform/broker']).toBe(await installed('broker'));
  expect((await platform(['validate', 'hello-app'])).stdout).toContain(
    'valid (0 errors, 0 warnings)',
  );
  // The published schema is where the `$schema` line of platform.yaml points once installed.
  const schemaLine = /\$schema=(\S+)/.exec(await readFile(join(app, 'platform.yaml'), 'utf8'));
  const schema = JSON.parse(
    await readFile(join(project, schemaLine?.[1] ?? 'missing'), 'utf8'),
  ) as { type?: string };
  expect(schema.type).toBe('object');
  // The app's tsconfig types its Function and page against the published declarations.
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', app], project);

  // The built bin under the machine's own Node (older than engines on the README's fresh machine).
  const { engines } = JSON.parse(
    await readFile(join(project, 'node_modules/@platform/broker/package.json'), 'utf8'),
  ) as { engines: { node: string } };
  expect(minimumNode(engines.node)).toBeDefined();
  const systemNode = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;
  const systemVersion = (
    await run(systemNode, ['-p', 'process.versions.node'], project)
  ).stdout.trim();
  const oldNode = await promisify(execFile)(systemNode, [bin, '--version'], { cwd: project, env })
    .then(() => ({ code: 0, stderr: '' }))
    .catch((error: { code: number; stderr: string }) => error);
  const message = nodeTooOld(systemVersion, engines.node, systemNode);
  expect(oldNode).toMatchObject(
    message === undefined ? { code: 0 } : { code: 1, stderr: `${message}\n` },
  );

  // 5. platform dev serves it; the Function answers through @platform/browser.
  dev = spawn(process.execPath, [bin, 'dev', 'hello-app', '--port', '0'], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const url = await waitForUrl(dev, lines, 180_000);
  expect(await (await fetch(url)).text()).toContain('<title>Hello</title>');
  expect((await fetch(`${url}/app.js`)).status).toBe(200);
  await writeFile(
    join(project, 'call.mjs'),
    `import { createPlatform } from '@platform/browser';
const platform = createPlatform({ appUrl: process.argv[2] });
console.log(JSON.stringify(await platform.functions.call('hello', { name: 'Ada' })));
`,
  );
  const called = await run(process.execPath, ['call.mjs', url], project);
  expect(JSON.parse(called.stdout)).toEqual({
    message: 'Hello, Ada!',
    signedIn: false,
    greetings: ['Welcome to your new app.'],
  });
  dev.kill('SIGTERM');
  expect(await exitOf(dev)).toBe(0);
});
