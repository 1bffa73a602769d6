// Stack traces of a Function name its own files, relative to the app folder
// (`functions/thrower/helper.ts:2:9`), not paths under `.platform/functions/` where the bundle
// lives: the bundle's source map is resolved against the bundle's own folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor({
    'functions/thrower/index.ts': `import { defineFunction, s } from '@platform/server';
import { fail } from './helper.ts';
export default defineFunction({
  input: s.object({}),
  handler: () => {
    fail('boom');
  },
});
`,
    'functions/thrower/helper.ts': `export function fail(message: string): never {
  throw new Error(message);
}
`,
    'functions/broken.ts': `import { defineFunction, s } from '@platform/server';
const ready: boolean = false;
if (!ready) throw new Error('not ready at load');
export default defineFunction({ input: s.object({}), handler: () => 1 });
`,
  });
  await env.broker.addFunction({
    name: 'thrower',
    entrypoint: 'functions/thrower/index.ts',
    access: 'public',
  });
});
afterAll(() => env?.cleanup());

describe('stack traces name the app files', () => {
  it('logs and prints the stack of an unhandled error with app-relative paths and lines', async () => {
    const response = await env.broker.app.request('/_platform/api/functions/thrower', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(500);
    const [entry] = env.broker.logs.list({ functionName: 'thrower' });
    const stack = (entry?.fields?.error as { stack?: string } | undefined)?.stack ?? '';
    expect(stack).toContain('Error: boom');
    // The frames of the helper and of the handler, by their paths in the app and their lines.
    expect(stack).toMatch(/\(functions\/thrower\/helper\.ts:2:9\)/);
    expect(stack).toMatch(/\(functions\/thrower\/index\.ts:6:5\)/);
    const printed = env.lines.find((line) => line.includes('Unhandled error in the Function'));
    expect(printed).toContain('(functions/thrower/helper.ts:2:9)');
    expect(`${stack}\n${env.lines.join('\n')}`).not.toContain('.platform/functions/');
  });

  it('prints an error thrown while the module loads with the app-relative path', async () => {
    await env.broker.addFunction({
      name: 'broken',
      entrypoint: 'functions/broken.ts',
      access: 'public',
    });
    // Its process starts on the first call, which reports why it could not.
    const response = await env.broker.app.request('/_platform/api/functions/broken', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(503);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('FUNCTION_UNAVAILABLE');
    expect(error.message).toContain('at functions/broken.ts:3:19');
    expect(env.lines).toContain('ERR   [broken]     at functions/broken.ts:3:19');
  });
});
