// A real Function (Deno) calls ctx.notifications.send through the runtime contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';

const ADA = '5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c';

let env: Awaited<ReturnType<typeof brokerFor>>;
beforeAll(async () => {
  env = await brokerFor({
    'functions/notify.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ title: s.string(), body: s.optional(s.string()) }),
  handler: async (ctx) => ctx.notifications.send({ to: ctx.user!.id, title: ctx.input.title, body: ctx.input.body, url: '/todos' }),
});
`,
  });
  await env.broker.addFunction({
    name: 'notify',
    entrypoint: 'functions/notify.ts',
    access: 'user',
  });
});
afterAll(() => env.cleanup());

const notify = (input: unknown) =>
  callOverHttp(env.broker, 'notify', input, { 'x-test-user': ADA });

describe('ctx.notifications.send in a Function', () => {
  it('answers zero reached before the user subscribes, then reaches the device', async () => {
    expect(await (await notify({ title: 'First' })).json()).toEqual({ result: { delivered: 0 } });
    await env.broker.push.subscribeLocal(ADA);
    expect(await (await notify({ title: 'Milk', body: 'Buy milk' })).json()).toEqual({
      result: { delivered: 1 },
    });
    const [latest] = await env.broker.push.local!.deliveries(1);
    expect(latest?.payload).toEqual({ title: 'Milk', body: 'Buy milk', url: '/todos' });
  });

  it('answers NOTIFICATION_TOO_LARGE for a notification that cannot fit a push message', async () => {
    const response = await notify({ title: 'Big', body: '🔔'.repeat(1000) });
    expect(response.status).toBe(413);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('NOTIFICATION_TOO_LARGE');
    expect(error.message).toMatch(/at most 3993/);
  });
});
