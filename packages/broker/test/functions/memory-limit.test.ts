import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';

const files = {
  'functions/hog.ts': `
import { defineFunction, s } from '@platform/server';
const kept: unknown[] = [];
export default defineFunction({
  input: s.object({ kind: s.string() }),
  handler: async (ctx) => {
    // Objects on the JavaScript heap, or bytes outside it: both count.
    if (ctx.input.kind === 'heap') for (;;) kept.push(new Array(100_000).fill({ n: Math.random() }));
    if (ctx.input.kind === 'bytes') {
      for (;;) {
        kept.push(new Uint8Array(16 * 1024 * 1024).fill(1));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    return 'small';
  },
});
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(files);
  await env.broker.addFunction({
    name: 'hog',
    entrypoint: 'functions/hog.ts',
    access: 'public',
    memoryMb: 160,
  });
});
afterAll(() => env.cleanup());

const call = (kind: string) => callOverHttp(env.broker, 'hog', { kind });

describe('the memory limit of a Function', () => {
  for (const kind of ['heap', 'bytes']) {
    it(`stops a Function holding too much (${kind}) with a clear error and restarts it`, async () => {
      const response = await call(kind);
      expect(response.status).toBe(500);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('FUNCTION_FAILED');
      expect(error.message).toBe(
        'Function "hog" exceeded its memory limit of 160 MB; it is being restarted.',
      );
      expect(env.lines.some((line) => line.includes('[hog] exceeded its memory limit'))).toBe(true);
      await expect.poll(async () => (await call('none')).status, { timeout: 10_000 }).toBe(200);
    }, 60_000);
  }
});
