import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';

const files = {
  'functions/slow.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ spin: s.boolean() }),
  handler: async (ctx) => {
    // A handler stuck in a loop blocks every other call of its process.
    if (ctx.input.spin) for (;;) {}
    return 'done';
  },
});
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(files);
  await env.broker.addFunction({
    name: 'slow',
    entrypoint: 'functions/slow.ts',
    access: 'public',
    timeoutMs: 1500,
  });
});
afterAll(() => env.cleanup());

const call = (spin: boolean) => callOverHttp(env.broker, 'slow', { spin });

describe('calls sharing a process with a timed-out call', () => {
  it('get a retryable error, and a retry succeeds', async () => {
    // Started first, so both calls below meet the same running process.
    expect(await (await call(false)).json()).toEqual({ result: 'done' });
    const stuck = call(true);
    // Sent while the first one spins: its own limit is far from reached when the process is
    // killed for the first one's.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const neighbour = await call(false);
    const timedOut = await stuck;
    expect(timedOut.status).toBe(504);
    expect(await timedOut.json()).toMatchObject({ error: { code: 'FUNCTION_TIMEOUT' } });
    expect(neighbour.status).toBe(503);
    const body = (await neighbour.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('FUNCTION_UNAVAILABLE');
    expect(body.error.message).toMatch(/another call .* time limit/);
    expect(await (await call(false)).json()).toEqual({ result: 'done' });
  }, 30_000);
});
