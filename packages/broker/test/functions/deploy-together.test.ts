// An app's Functions are deployed together at start: bundled by as few builds as their folders
// allow, each settling on its own. What users rely on: every Function bundled together answers
// as if bundled alone, one that cannot be bundled names its own problem and takes no other down,
// and a second start reuses the bundles.
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDeclared } from '../../src/functions/function-bundles.ts';
import type { FunctionDeclaration } from '../../src/functions/function-deployments.ts';
import { resolveSdk } from '../../src/functions/sdk.ts';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';

const greeter = (greeting: string) => `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ name: s.string() }),
  handler: (ctx) => ({ greeting: '${greeting}, ' + ctx.input.name }),
});
`;

const files = {
  'functions/hello.ts': greeter('Hello'),
  'functions/bye/index.ts': greeter('Bye'),
  'functions/broken.ts':
    "import { defineFunction } from '@platform/server';\nexport default defineFunction({",
};

const declarations: FunctionDeclaration[] = [
  { name: 'hello', entrypoint: 'functions/hello.ts', access: 'public' },
  { name: 'broken', entrypoint: 'functions/broken.ts', access: 'public' },
  { name: 'bye', entrypoint: 'functions/bye/index.ts', access: 'public' },
];

let env: Awaited<ReturnType<typeof brokerFor>>;
beforeAll(async () => {
  env = await brokerFor(files);
});
afterAll(() => env?.cleanup());

const bundleOf = (name: string) => join(env.appDir, '.platform', 'functions', `${name}.js`);

const greet = async (name: string, who: string) => {
  const response = await callOverHttp(env.broker, name, { name: who });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { greeting: string } }).result.greeting;
};

describe('Functions deployed together', () => {
  it('answer each on their own; one that cannot be bundled fails alone', async () => {
    const [hello, broken, bye] = await Promise.allSettled(
      env.broker.functions.addAll(declarations),
    );
    expect(hello).toMatchObject({ value: { outFile: expect.stringMatching(/hello\.js$/) } });
    expect(bye).toMatchObject({ value: { outFile: expect.stringMatching(/bye\.js$/) } });
    expect(broken).toMatchObject({
      status: 'rejected',
      reason: {
        code: 'FUNCTION_BUNDLE_FAILED',
        message: expect.stringContaining('functions/broken.ts:2:'),
      },
    });
    expect(await greet('hello', 'Ada')).toBe('Hello, Ada');
    expect(await greet('bye', 'Ada')).toBe('Bye, Ada');
    expect(env.broker.invoker.get('broken')).toBeUndefined();
  });

  it('reuse the bundles of unchanged Functions when deployed again', async () => {
    const written = async () =>
      Promise.all(['hello', 'bye'].map(async (name) => (await stat(bundleOf(name))).mtimeMs));
    const before = await written();
    const settled = await Promise.allSettled(env.broker.functions.addAll(declarations));
    expect(settled.map(({ status }) => status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await written()).toEqual(before);
    expect(await greet('hello', 'Grace')).toBe('Hello, Grace');
    expect(await greet('bye', 'Grace')).toBe('Bye, Grace');
  });
});

describe('Functions bundled before their deployment', () => {
  // As `platform dev` bundles them while the databases open.
  const ahead = (fns: FunctionDeclaration[]) =>
    Promise.all(
      bundleDeclared(
        {
          appDir: env.appDir,
          stateDir: join(env.appDir, '.platform'),
          sdk: resolveSdk(env.appDir, '2.6.0'),
        },
        fns,
      ),
    );
  const fns = [declarations[0], declarations[2]] as FunctionDeclaration[];

  it('are deployed from those bundles, unchanged', async () => {
    await rm(join(env.appDir, '.platform', 'functions'), { recursive: true });
    await ahead(fns);
    const written = await Promise.all(
      ['hello', 'bye'].map(async (name) => (await stat(bundleOf(name))).mtimeMs),
    );
    await Promise.all(env.broker.functions.addAll(fns));
    expect(
      await Promise.all(['hello', 'bye'].map(async (name) => (await stat(bundleOf(name))).mtimeMs)),
    ).toEqual(written);
    expect(await greet('hello', 'Kim')).toBe('Hello, Kim');
  });

  it('are bundled again when their bundles were removed meanwhile', async () => {
    await ahead(fns);
    // As finishing an account deletion does while the broker starts.
    await rm(join(env.appDir, '.platform', 'functions'), { recursive: true });
    await Promise.all(env.broker.functions.addAll(fns));
    expect(await greet('hello', 'Lin')).toBe('Hello, Lin');
    expect(await greet('bye', 'Lin')).toBe('Bye, Lin');
  });
});
