import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';
import { queue, waitFor } from '../jobs/engine-helpers.ts';

const KEY = 'sk_live_5f2c9d0e7a';
const PIN = '1234';
const LATE = 'added-after-start-9x7';

const files = {
  '.platform/secrets.json': JSON.stringify({ API_KEY: KEY, PIN }),
  'functions/leaky.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ what: s.string(), text: s.optional(s.string()) }),
  handler: async (ctx) => {
    const key = await ctx.secrets.get('API_KEY');
    if (ctx.input.what === 'print') {
      console.log('the key is ' + key);
      console.error('the key again: ' + key);
    }
    if (ctx.input.what === 'echo') console.log('echo ' + ctx.input.text);
    if (ctx.input.what === 'throw') throw new Error('the provider refused key ' + key);
    // Logged without reading the secret, so only the broker knows to redact it.
    if (ctx.input.what === 'pin') ctx.log.info('pin ' + ${JSON.stringify(PIN)}, { n: 12345, s: 'x1234y', list: ['a1234'], ok: 7 });
    if (ctx.input.what === 'enqueue') return ctx.jobs.enqueue('charges', {}, { idempotencyKey: 'c1' });
    return 'ok';
  },
});
`,
  'functions/charge.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => {
    throw new Error('charge failed with key ' + (await ctx.secrets.get('API_KEY')));
  },
});
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(files, {
    declared: { secrets: ['API_KEY', 'PIN', 'LATE'], searches: {}, emailAliases: [] },
    jobs: { queues: [queue('charges', 'charge', { maxAttempts: 1 })], cron: [], pollMs: 50 },
  });
  await env.broker.addFunction({
    name: 'leaky',
    entrypoint: 'functions/leaky.ts',
    access: 'public',
  });
  await env.broker.addFunction({
    name: 'charge',
    entrypoint: 'functions/charge.ts',
    access: 'system',
  });
});
afterAll(() => env.cleanup());

const call = (input: Record<string, unknown>) => callOverHttp(env.broker, 'leaky', input);

describe('known secret values never leave the broker', () => {
  it('are scrubbed from what a Function prints to stdout and stderr', async () => {
    expect((await call({ what: 'print' })).status).toBe(200);
    const printed = env.lines.filter((line) => line.includes('[leaky] the key'));
    expect(printed).toHaveLength(2);
    for (const line of printed) {
      expect(line).not.toContain(KEY);
      expect(line).toContain('[REDACTED]');
    }
  });

  it("are scrubbed from a Function's error, as an anonymous caller sees it", async () => {
    const response = await call({ what: 'throw' });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text)).toMatchObject({
      error: { code: 'FUNCTION_FAILED', message: expect.stringContaining('[REDACTED]') },
    });
  });

  it("are scrubbed from a queue consumer's error kept with the job and served by the jobs API", async () => {
    const enqueued = (await (await call({ what: 'enqueue' })).json()) as { result: { id: string } };
    const id = enqueued.result.id;
    await waitFor(async () => (await env.broker.jobs.service.get(id)).state === 'dead_lettered');
    const served = await fetch(`${env.broker.server.url}/v1/apps/${env.broker.appId}/jobs/${id}`);
    const text = await served.text();
    expect(served.status).toBe(200);
    expect(text).not.toContain(KEY);
    expect(text).toContain('charge failed with key [REDACTED]');
    const stored = await env.broker.db.query<{ last_error: unknown }>(
      'select last_error from platform.jobs where id = $1',
      [id],
    );
    expect(JSON.stringify(stored.rows)).not.toContain(KEY);
  });

  it('redacts a short secret inside the logged structure without losing the entry', async () => {
    const response = await call({ what: 'pin' });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(env.broker.logs.list({ requestId })).toMatchObject([
      {
        message: 'pin [REDACTED]',
        fields: { n: '[REDACTED]5', s: 'x[REDACTED]y', list: ['a[REDACTED]'], ok: 7 },
      },
    ]);
  });

  it('redacts values added to the secrets file after the start', async () => {
    await writeFile(
      join(env.appDir, '.platform', 'secrets.json'),
      JSON.stringify({ API_KEY: KEY, PIN, LATE }),
    );
    await expect
      .poll(
        async () => {
          await call({ what: 'echo', text: LATE });
          return env.lines.filter((line) => line.includes('[leaky] echo')).at(-1);
        },
        { timeout: 5000, interval: 200 },
      )
      .toMatch(/echo \[REDACTED\]$/);
  });
});
