import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { versionPlugin } from '../build/version-plugin.ts';
import { defineFunction, type HandlerContext, PLATFORM_SDK_VERSION, s } from '../src/index.ts';
import { createTestContext } from '../src/testing/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('defineFunction', () => {
  it('types ctx.input from the schema', () => {
    const fn = defineFunction({
      input: s.object({ id: s.uuid(), note: s.optional(s.string()) }),
      handler: (ctx) => {
        expectTypeOf(ctx.input).toEqualTypeOf<{ id: string; note?: string | undefined }>();
        expectTypeOf(ctx).toExtend<HandlerContext<{ id: string; note?: string | undefined }>>();
        return ctx.input.id;
      },
    });
    expectTypeOf(fn.run).returns.resolves.toEqualTypeOf<string>();
  });

  it('accepts exactly input and handler (type error and TypeError for a third key)', () => {
    const definition = { input: s.object({}), handler: () => 1, route: '/x' };
    // @ts-expect-error a third key is a type error in an object literal
    expect(() => defineFunction({ input: s.object({}), handler: () => 1, route: '/x' })).toThrow(
      TypeError,
    );
    expect(() => defineFunction(definition)).toThrow(
      /exactly \{ input, handler \}; unexpected route/,
    );
  });

  it('rejects a missing schema or handler with TypeError', () => {
    // @ts-expect-error input must be a schema
    expect(() => defineFunction({ input: {}, handler: () => 1 })).toThrow(TypeError);
    // @ts-expect-error handler must be a function
    expect(() => defineFunction({ input: s.object({}), handler: 1 })).toThrow(TypeError);
  });

  it('run parses ctx.input before the handler and passes the parsed value', async () => {
    let ran = false;
    const fn = defineFunction({
      input: s.object({ n: s.number({ min: 1 }) }),
      handler: (ctx) => {
        ran = true;
        return ctx.input.n * 2;
      },
    });
    await expect(fn.run(createTestContext({ input: { n: 0 } }))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(ran).toBe(false);
    expect(await fn.run(createTestContext({ input: { n: 21 } }))).toBe(42);
  });
});

describe('PLATFORM_SDK_VERSION', () => {
  it('matches package.json in source runs', () => {
    expect(PLATFORM_SDK_VERSION).toBe(pkg.version);
  });

  it('is generated from package.json into the build as a literal', async () => {
    const out = await build({
      entryPoints: [new URL('../src/version.ts', import.meta.url).pathname],
      bundle: true,
      write: false,
      format: 'esm',
      plugins: [versionPlugin],
    });
    const text = out.outputFiles[0]?.text ?? '';
    expect(text).toContain(`: ${JSON.stringify(pkg.version)}`);
    expect(text).toContain('__PLATFORM_PINNED_SDK_VERSION__');
    expect(text).not.toContain('dependencies');
  });

  it('in the build still reports the pin the broker defines when it bundles a Function', async () => {
    const out = await build({
      entryPoints: [new URL('../src/version.ts', import.meta.url).pathname],
      bundle: true,
      write: false,
      format: 'esm',
      plugins: [versionPlugin],
      define: { 'globalThis.__PLATFORM_PINNED_SDK_VERSION__': '"2.3.0"' },
    });
    const text = out.outputFiles[0]?.text ?? '';
    const url = `data:text/javascript;base64,${Buffer.from(text).toString('base64')}`;
    const built = (await import(url)) as { PLATFORM_SDK_VERSION: string };
    expect(built.PLATFORM_SDK_VERSION).toBe('2.3.0');
  });
});
