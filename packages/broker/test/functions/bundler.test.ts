import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunction, bundleFunctions } from '../../src/functions/bundler.ts';
import { FunctionProcess } from '../../src/functions/function-process.ts';
import { brokerSdk, resolveSdk } from '../../src/functions/sdk.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let app: { path: string; remove: () => Promise<void> };

async function write(file: string, text: string): Promise<void> {
  await mkdir(dirname(join(app.path, file)), { recursive: true });
  await writeFile(join(app.path, file), text);
}

beforeAll(async () => {
  app = await tempDir('broker-bundle-');
  await write('shared/util.ts', 'export const x = 1;\n');
  await write(
    'functions/ok/helpers/greet.ts',
    "export const greet = (name: string): string => 'hi ' + name;\n",
  );
  // A self-serving entry (no host wrapper) that uses the SDK's schema helpers and a helper file.
  await write(
    'functions/ok/index.ts',
    `import { s } from '@platform/server';
import { greet } from './helpers/greet.ts';
const input = s.object({ name: s.string() });
const port = Number(Deno.env.get('PLATFORM_HOST_PORT'));
Deno.serve({ hostname: '127.0.0.1', port, onListen: () => console.log('PLATFORM_HOST_READY {}') }, async (req) => {
  const body = await req.json();
  const parsed = input.safeParse(body.input);
  return Response.json(parsed.success ? { result: greet(parsed.data.name) } : { error: 'bad' });
});
`,
  );
  await write(
    'functions/escape/index.ts',
    "import { defineFunction } from '@platform/server';\nimport { x } from '../../shared/util.ts';\nexport default x;\n",
  );
  await write(
    'functions/noext/index.ts',
    "import { greet } from '../ok/helpers/greet.ts';\nimport { y } from './helper';\nexport default [greet, y];\n",
  );
  await write('functions/noext/helper.ts', 'export const y = 2;\n');
});
afterAll(() => app.remove());

const out = (name: string) => join(app.path, '.platform', 'functions', `${name}.js`);

describe('bundleFunction', () => {
  it('bundles a Function alone, SDK included, and runs it in Deno without node_modules', async () => {
    const sdk = resolveSdk(app.path, '2.6.0');
    expect(sdk.origin).toBe('broker');
    const result = await bundleFunction({
      appDir: app.path,
      entrypoint: 'functions/ok/index.ts',
      sdk,
      outFile: out('ok'),
      host: false,
    });
    const code = await readFile(result.outFile, 'utf8');
    expect(code).not.toMatch(/from\s+["']@platform\/server["']/);
    expect(result.inputs.map((f) => f.slice(app.path.length + 1)).sort()).toEqual([
      'functions/ok/helpers/greet.ts',
      'functions/ok/index.ts',
    ]);

    const broker: Server = createServer((_, res) => res.end());
    await new Promise<void>((r) => broker.listen(0, '127.0.0.1', r));
    const fn = new FunctionProcess({
      name: 'ok',
      bundlePath: result.outFile,
      brokerPort: (broker.address() as AddressInfo).port,
    });
    try {
      const response = await fn.request({
        method: 'POST',
        path: '/',
        body: JSON.stringify({ input: { name: 'ada' } }),
        timeoutMs: 10_000,
      });
      expect(await response.json()).toEqual({ result: 'hi ada' });
    } finally {
      await fn.stop();
      await new Promise<void>((r) => broker.close(() => r()));
    }
  });

  it('links the bundle to a source map beside it and keeps only the previous map', async () => {
    const bundle = (greeting: string) =>
      write(
        'functions/maps/index.ts',
        `export const greeting = ${JSON.stringify(greeting)};\n`,
      ).then(() =>
        bundleFunction({
          appDir: app.path,
          entrypoint: 'functions/maps/index.ts',
          sdk: brokerSdk(),
          outFile: out('maps'),
          host: false,
        }),
      );
    const maps = async () =>
      (await readdir(dirname(out('maps')))).filter((file) => /^maps\.js\..*map$/.test(file)).sort();
    const linked = async () =>
      /\/\/# sourceMappingURL=(maps\.js\.[0-9a-f]{12}\.map)\n$/.exec(
        await readFile(out('maps'), 'utf8'),
      )?.[1];

    await bundle('one');
    const first = await linked();
    expect(first).toBeDefined();
    expect(await readFile(out('maps'), 'utf8')).not.toContain('data:application/json');
    const map = JSON.parse(await readFile(join(dirname(out('maps')), first!), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources).toEqual(['../../functions/maps/index.ts']);
    expect(await maps()).toEqual([first]);

    // Bundling the same sources again names the same map.
    await bundle('one');
    expect(await linked()).toBe(first);
    expect(await maps()).toEqual([first]);

    // A changed bundle links a new map; the previous one stays for a process still running it.
    const earlier = new Date(Date.now() - 60_000);
    await utimes(join(dirname(out('maps')), first!), earlier, earlier);
    await bundle('two');
    const second = await linked();
    expect(second).not.toBe(first);
    expect(await maps()).toEqual([first, second].sort());

    // One more change removes the oldest.
    await bundle('three');
    const third = await linked();
    expect(await maps()).toEqual([second, third].sort());
  });

  it('rejects a relative import that leaves the directory, with file and line', async () => {
    const error = await bundleFunction({
      appDir: app.path,
      entrypoint: 'functions/escape/index.ts',
      sdk: brokerSdk(),
      outFile: out('escape'),
      host: false,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'FUNCTION_BUNDLE_FAILED',
      details: { diagnostics: [{ file: 'functions/escape/index.ts', line: 2 }] },
    });
    expect(String((error as Error).message)).toContain(
      'functions/escape/index.ts:2:19: Import "../../shared/util.ts" leaves',
    );
  });

  it('rejects a missing file or a name without its extension', async () => {
    const error = await bundleFunction({
      appDir: app.path,
      entrypoint: 'functions/noext/index.ts',
      sdk: brokerSdk(),
      outFile: out('noext'),
      host: false,
    }).catch((e: unknown) => e);
    const diagnostics = (error as { details: { diagnostics: { line: number; message: string }[] } })
      .details.diagnostics;
    expect(diagnostics.map((d) => d.line)).toEqual([1, 2]);
    expect(diagnostics[0]?.message).toMatch(/leaves the Function's directory "functions\/noext"/);
    expect(diagnostics[1]?.message).toMatch(/names a missing file/);
  });

  it('refuses a pinned SDK version the broker does not have', () => {
    const have = brokerSdk().version;
    expect(() => resolveSdk(app.path, '9.0.0')).toThrow(
      /pins runtime SDK 9.0.0, but this broker has @platform\/server/,
    );
    expect(() => resolveSdk(app.path, '2.99.0')).toThrowError(
      expect.objectContaining({ code: 'SDK_VERSION_UNSUPPORTED' }),
    );
    expect(resolveSdk(app.path, '2.3.0').version).toBe(have);
  });

  it('serves a pre-release pin from that very pre-release, and from its release', () => {
    const copy = (version: string) =>
      ({ resolveDir: app.path, version, origin: 'broker' }) as const;
    // A snapshot release pins exactly the SDK it published with.
    const snapshot = '0.0.0-e2e-20261128111640';
    expect(resolveSdk(app.path, snapshot, copy(snapshot)).version).toBe(snapshot);
    expect(resolveSdk(app.path, '2.7.0-beta.1', copy('2.7.0')).version).toBe('2.7.0');
    expect(resolveSdk(app.path, '2.6.0', copy('2.7.0-beta.1')).version).toBe('2.7.0-beta.1');
    // A release is newer than its pre-releases, and two pre-releases are different SDKs.
    expect(() => resolveSdk(app.path, '2.7.0', copy('2.7.0-beta.1'))).toThrow(
      /pins runtime SDK 2\.7\.0, but this broker has @platform\/server 2\.7\.0-beta\.1 \(it serves 2\.0\.0/,
    );
    expect(() => resolveSdk(app.path, '2.7.0-beta.2', copy('2.7.0-beta.1'))).toThrow(
      /SDK 2\.7\.0-beta\.2/,
    );
  });
});

describe('bundleFunctions', () => {
  beforeAll(async () => {
    await write('many/functions/one/index.ts', "export const one = 'one';\n");
    await write('many/functions/two/index.ts', "import { t } from './t.ts';\nexport default t;\n");
    await write('many/functions/two/t.ts', "export const t = 'two';\n");
    // Reaches into a neighbour's folder, which is bundled in the same build.
    await write(
      'many/functions/nosy/index.ts',
      "import { t } from '../two/t.ts';\nexport const nosy = t;\n",
    );
    // A flat Function whose folder holds the others: it may import from them.
    await write(
      'many/functions/flat.ts',
      "import { one } from './one/index.ts';\nexport const flat = one;\n",
    );
  });

  const many = (name: string) => join(app.path, 'many', '.platform', 'functions', `${name}.js`);
  const bundleMany = (names: Record<string, string>) =>
    bundleFunctions({
      appDir: join(app.path, 'many'),
      sdk: brokerSdk(),
      host: false,
      targets: Object.entries(names).map(([name, entrypoint]) => ({
        entrypoint,
        outFile: many(name),
      })),
    });

  it('writes each Function its own bundle and map, as bundled alone', async () => {
    const [one, two, flat] = await Promise.all(
      bundleMany({
        one: 'functions/one/index.ts',
        two: 'functions/two/index.ts',
        flat: 'functions/flat.ts',
      }),
    );
    const relative = (inputs: readonly string[] | undefined) =>
      inputs?.map((file) => file.slice(join(app.path, 'many').length + 1)).sort();
    expect(relative(one?.inputs)).toEqual(['functions/one/index.ts']);
    expect(relative(two?.inputs)).toEqual(['functions/two/index.ts', 'functions/two/t.ts']);
    expect(relative(flat?.inputs)).toEqual(['functions/flat.ts', 'functions/one/index.ts']);
    const code = (name: string) => readFile(many(name), 'utf8');
    expect(await code('one')).toContain('"one"');
    expect(await code('one')).not.toContain('"two"');
    expect(await code('two')).toContain('"two"');
    expect(await code('two')).not.toContain('"one"');
    for (const name of ['one', 'two', 'flat']) {
      const link = /\/\/# sourceMappingURL=(\S+)\n$/.exec(await code(name))?.[1];
      const map = JSON.parse(await readFile(join(dirname(many(name)), link!), 'utf8')) as {
        sources: string[];
      };
      expect(map.sources.every((source) => source.startsWith('../../functions/'))).toBe(true);
    }
    // What esbuild wrote was moved into place: nothing else is left beside the bundles.
    expect((await readdir(dirname(many('one')))).filter((file) => file.startsWith('.'))).toEqual(
      [],
    );
    // The same Function bundled alone gives the same file.
    const together = await code('two');
    await bundleFunction({
      appDir: join(app.path, 'many'),
      sdk: brokerSdk(),
      host: false,
      entrypoint: 'functions/two/index.ts',
      outFile: many('two'),
    });
    expect(await code('two')).toBe(together);
  });

  it("judges each Function's imports by its own folder, and fails it alone", async () => {
    const settled = await Promise.allSettled(
      bundleMany({
        one: 'functions/one/index.ts',
        nosy: 'functions/nosy/index.ts',
        two: 'functions/two/index.ts',
      }),
    );
    expect(settled.map(({ status }) => status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({
      code: 'FUNCTION_BUNDLE_FAILED',
      message: expect.stringContaining(
        'functions/nosy/index.ts:1:19: Import "../two/t.ts" leaves the Function\'s directory "functions/nosy"',
      ),
      details: { entrypoint: 'functions/nosy/index.ts' },
    });
  });

  it('removes what a build wrote when its process ended before moving it, and only that', async () => {
    const dir = dirname(many('one'));
    const child = spawn(process.execPath, ['-e', '']);
    await once(child, 'exit');
    const dead = child.pid as number;
    const files = {
      abandoned: `.one.${dead}-7.js`,
      abandonedMap: `.one.${dead}-7.js.map`,
      running: `.one.${process.ppid}-3.js`,
      other: '.keep',
    };
    for (const name of Object.values(files)) await writeFile(join(dir, name), '');
    await Promise.all(bundleMany({ one: 'functions/one/index.ts' }));
    const left = await readdir(dir);
    expect(left).not.toContain(files.abandoned);
    expect(left).not.toContain(files.abandonedMap);
    expect(left).toContain(files.running);
    expect(left).toContain(files.other);
    await Promise.all([files.running, files.other].map((name) => rm(join(dir, name))));
  });
});
