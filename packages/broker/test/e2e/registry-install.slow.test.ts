// The release path as a user outside the repository meets it. A copy of the packages gets
// snapshot versions from `changeset version --snapshot`, is built, and `changeset publish` sends
// every package to a throwaway Verdaccio on loopback. Then, in an empty folder whose npm knows
// only that registry, the documented commands run exactly: `npm create @platform/app my-app`,
// `npm install` (no warning about install scripts), `npx platform types --check`, the editor
// schema where the `$schema` line points, `npx platform dev` with the page answering and the
// Function called through `@platform/browser`, `tsc` over the app, and the CLI refusing the
// machine's older Node. Files missing from `files`, a wrong `exports`, an undeclared dependency
// or a pin that is not what was just published fail it.
//
// Verdaccio proxies the packages that are not the SDK's from an uplink: PLATFORM_TEST_NPM_UPLINK,
// or else the registry npm is configured with on this machine (`npm config get registry`).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { nodeTooOld } from '../../src/cli/node-version.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { root, waitForUrl } from './helpers.ts';

/** The published packages, in build order. */
const packages = ['errors', 'schema', 'server', 'browser', 'broker', 'create-app'] as const;

/**
 * The whole run's bound. Measured: 424 s on a loaded two-core machine (building the packages
 * with their declarations about 150 s, npm create and npm install with a new npm cache through
 * the proxy about 170 s, the rest under a minute); the bound leaves about twice that.
 */
const RUN_BOUND_MS = 900_000;

// Child processes: this Node first on PATH (npm's `#!/usr/bin/env node`, the app's bins), and
// nothing of the npm run or test runner that started the suite (an npm_config_* of `npm test`
// would point npm at the repository).
const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD',
  ),
);
baseEnv.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
baseEnv.NO_COLOR = '1';

/** Runs a program to completion; rejects with its output when it fails. */
async function run(file: string, args: readonly string[], cwd: string, env = baseEnv) {
  try {
    return await promisify(execFile)(file, [...args], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: RUN_BOUND_MS,
    });
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${file} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
    );
  }
}

/** A port free on loopback now (Verdaccio takes a fixed port, not 0). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** The version in a package.json. */
async function versionIn(dir: string): Promise<string> {
  return (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

let work: { path: string; remove: () => Promise<void> } | undefined;
let verdaccio: ChildProcess | undefined;
let dev: ChildProcess | undefined;

/** Ends a child started in its own process group, and whatever it started (npx → platform). */
function endGroup(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

afterAll(async () => {
  endGroup(dev, 'SIGKILL');
  endGroup(verdaccio, 'SIGKILL');
  await work?.remove();
});

it('the published packages: npm create, npm install, platform types and dev, from a registry', {
  timeout: RUN_BOUND_MS,
}, async () => {
  const started = Date.now();
  const lap = (what: string) =>
    console.log(`registry-install: ${what} at ${Math.round((Date.now() - started) / 1000)} s`);
  work = await tempDir('platform-registry-');

  // 1. A copy of the packages and the pending changesets, so the repository keeps its versions.
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
  // The changeset config, and one changeset of this run's own: a snapshot of the pending ones
  // would give the SDK a version this checkout's validator does not know yet, and the app would
  // validate with a warning. A snapshot keeps its calculated version (3.11.1-e2e-...), so the
  // pins stay inside the majors the SDK gates its features on.
  await mkdir(join(copy, '.changeset'));
  const config = JSON.parse(await readFile(join(root, '.changeset/config.json'), 'utf8')) as {
    ignore: string[];
    snapshot?: unknown;
  };
  config.ignore = []; // the bench workspace is not copied
  config.snapshot = { useCalculatedVersion: true };
  await writeFile(join(copy, '.changeset/config.json'), JSON.stringify(config));
  await writeFile(
    join(copy, '.changeset/registry-e2e.md'),
    '---\n"@platform/broker": patch\n"@platform/create-app": patch\n---\n\nA release candidate.\n',
  );
  await writeFile(
    join(copy, 'package.json'),
    JSON.stringify({
      name: 'platform-sdk-copy',
      private: true,
      workspaces: packages.map((name) => `packages/${name}`),
    }),
  );
  // Changesets tells an npm workspace root by its lockfile.
  await writeFile(join(copy, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3 }));
  await cp(join(root, 'tsconfig.base.json'), join(copy, 'tsconfig.base.json'));
  await symlink(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const changeset = join(root, 'node_modules/@changesets/cli/bin.js');
  await run(process.execPath, [changeset, 'version', '--snapshot', 'e2e'], copy);
  const published = Object.fromEntries(
    await Promise.all(
      packages.map(async (name) => [name, await versionIn(join(copy, 'packages', name))] as const),
    ),
  );
  // Snapshot versions: nothing an earlier run or the public registry could already hold.
  expect(published.broker).toMatch(/-e2e-/);
  lap('versioned');

  // 2. Built after versioning: the broker inlines its package.json, the pins of a new app.
  const tsup = join(root, 'node_modules/tsup/dist/cli-default.js');
  for (const name of packages) {
    if (existsSync(join(copy, 'packages', name, 'tsup.config.ts'))) {
      await run(process.execPath, [tsup], join(copy, 'packages', name));
    }
  }
  lap('built');

  // 3. A throwaway registry on loopback; the SDK's scope is its own, the rest proxied.
  const uplink =
    process.env.PLATFORM_TEST_NPM_UPLINK ??
    (await run('npm', ['config', 'get', 'registry'], work.path)).stdout.trim();
  const port = await freePort();
  const registry = `http://127.0.0.1:${port}/`;
  const storage = join(work.path, 'verdaccio');
  await mkdir(storage);
  await writeFile(
    join(storage, 'config.yaml'),
    `storage: ${JSON.stringify(join(storage, 'storage'))}
auth:
  htpasswd:
    file: ${JSON.stringify(join(storage, 'htpasswd'))}
uplinks:
  upstream:
    url: ${JSON.stringify(uplink)}
    timeout: 60s
packages:
  '@platform/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    proxy: upstream
log: { type: stdout, format: pretty, level: error }
`,
  );
  verdaccio = spawn(
    process.execPath,
    [
      join(root, 'node_modules/verdaccio/bin/verdaccio'),
      '--config',
      join(storage, 'config.yaml'),
      '--listen',
      `127.0.0.1:${port}`,
    ],
    { env: baseEnv, stdio: ['ignore', 'inherit', 'inherit'], detached: true },
  );
  await expect
    .poll(
      () =>
        fetch(`${registry}-/ping`).then(
          (r) => r.status,
          () => 0,
        ),
      { timeout: 60_000 },
    )
    .toBe(200);
  const user = await fetch(`${registry}-/user/org.couchdb.user:release`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release', password: 'release-password' }),
  });
  expect(user.status).toBe(201);
  const { token } = (await user.json()) as { token: string };
  // Only this registry: the user config names it, the global one is left out. The publisher has
  // a token; the user, as anyone who installs, has none. npm's cache is new too, as on a new
  // machine: npm create would otherwise run a create-app an earlier run left in its npx cache.
  const npmEnv = async (name: string, lines: string[]): Promise<NodeJS.ProcessEnv> => {
    const npmrc = join(work!.path, name);
    await writeFile(npmrc, `${[`registry=${registry}`, ...lines].join('\n')}\n`);
    return {
      ...baseEnv,
      npm_config_registry: registry,
      npm_config_userconfig: npmrc,
      npm_config_globalconfig: join(work!.path, 'no-global-npmrc'),
      npm_config_cache: join(work!.path, 'npm-cache'),
      npm_config_yes: 'true',
      npm_config_update_notifier: 'false',
    };
  };
  const publisher = await npmEnv('publisher-npmrc', [`//127.0.0.1:${port}/:_authToken=${token}`]);
  const env = await npmEnv('user-npmrc', []);
  lap('registry up');

  // 4. changeset publish: every package, to the registry npm_config_registry names.
  await run(process.execPath, [changeset, 'publish', '--no-git-tag'], copy, publisher);
  for (const name of packages) {
    const packument = (await (await fetch(`${registry}@platform%2f${name}`)).json()) as {
      'dist-tags': Record<string, string>;
    };
    expect(packument['dist-tags'].latest).toBe(published[name]);
  }
  lap('published');

  // 5. An empty folder outside the repository: the README's commands, exactly.
  const home = join(work.path, 'home');
  await mkdir(home);
  const created = await run('npm', ['create', '@platform/app', 'my-app'], home, env);
  expect(created.stdout).toContain('Created a new app in my-app');
  const app = join(home, 'my-app');
  lap('created');
  const installed = await run('npm', ['install', '--no-audit', '--no-fund'], app, env);
  // npm warns about install scripts the app's package.json does not allow (allowScripts).
  expect(`${installed.stdout}\n${installed.stderr}`).not.toMatch(/install-scripts|EBADENGINE/);
  lap('installed');

  // The versions the app pins, and got, are the ones just published.
  const pins = JSON.parse(await readFile(join(app, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  expect(pins.dependencies).toMatchObject({
    '@platform/server': published.server,
    '@platform/browser': published.browser,
  });
  expect(pins.devDependencies).toMatchObject({
    '@platform/broker': published.broker,
    '@platform/schema': published.schema,
  });
  for (const name of ['errors', 'schema', 'server', 'browser', 'broker'] as const) {
    expect(await versionIn(join(app, 'node_modules/@platform', name))).toBe(published[name]);
  }

  const npx = (args: string[]) => run('npx', args, app, env);
  expect((await npx(['platform', '--version'])).stdout.trim()).toBe(published.broker);
  await npx(['platform', 'types', '--check']);
  expect((await npx(['platform', 'validate'])).stdout).toContain('valid (0 errors, 0 warnings)');
  // The editor schema is where the `$schema` line of platform.yaml points.
  const schemaLine = /\$schema=(\S+)/.exec(await readFile(join(app, 'platform.yaml'), 'utf8'));
  const schema = JSON.parse(await readFile(resolve(app, schemaLine?.[1] ?? 'missing'), 'utf8')) as {
    type?: string;
  };
  expect(schema.type).toBe('object');
  // The app's tsconfig types its Function and page against the published declarations.
  await npx(['tsc']);
  lap('checked');

  // 6. npx platform dev, a real process: the page answers, the Function through @platform/browser.
  dev = spawn('npx', ['platform', 'dev', '--port', '0'], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const url = await waitForUrl(dev, lines, 180_000);
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<title>Hello</title>');
  expect((await fetch(`${url}/app.js`)).status).toBe(200);
  await writeFile(
    join(app, 'call.mjs'),
    `import { createPlatform } from '@platform/browser';
const platform = createPlatform({ appUrl: process.argv[2] });
console.log(JSON.stringify(await platform.functions.call('hello', { name: 'Ada' })));
`,
  );
  expect(JSON.parse((await run(process.execPath, ['call.mjs', url], app, env)).stdout)).toEqual({
    message: 'Hello, Ada!',
    signedIn: false,
    greetings: ['Welcome to your new app.'],
  });
  endGroup(dev, 'SIGTERM');
  lap('served');

  // 7. The machine's own Node, when older than engines (Node 20 here), gets the message.
  const systemNode = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;
  const systemVersion = (await run(systemNode, ['-p', 'process.versions.node'], app)).stdout.trim();
  const bin = join(app, 'node_modules/.bin/platform');
  const oldNode = await promisify(execFile)(systemNode, [bin, '--version'], { cwd: app, env })
    .then(() => ({ code: 0, stderr: '' }))
    .catch((error: { code: number; stderr: string }) => error);
  const engines = (
    JSON.parse(await readFile(join(app, 'node_modules/@platform/broker/package.json'), 'utf8')) as {
      engines: { node: string };
    }
  ).engines.node;
  const message = nodeTooOld(systemVersion, engines, systemNode);
  expect(oldNode).toMatchObject(
    message === undefined ? { code: 0 } : { code: 1, stderr: `${message}\n` },
  );
  lap('done');
});
