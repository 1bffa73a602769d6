// A real Function (Deno) calls ctx.realtime.broadcast through the runtime contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';
import { TestSocket } from './realtime-client.ts';

const ADA = '5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c';

let env: Awaited<ReturnType<typeof brokerFor>>;
const sockets: TestSocket[] = [];
beforeAll(async () => {
  env = await brokerFor(
    {
      'functions/announce.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ channel: s.string(), text: s.string() }),
  handler: async (ctx) => ctx.realtime.broadcast(ctx.input.channel, 'news', { text: ctx.input.text }),
});
`,
    },
    {
      realtime: {
        channels: { announcements: { join: 'public', send: 'functions' } },
        tables: [],
      },
    },
  );
  await env.broker.addFunction({
    name: 'announce',
    entrypoint: 'functions/announce.ts',
    access: 'user',
  });
}, 60_000);
afterAll(async () => {
  for (const socket of sockets) await socket.close();
  await env.cleanup();
});

const announce = (input: unknown) =>
  callOverHttp(env.broker, 'announce', input, { 'x-test-user': ADA });

describe('ctx.realtime.broadcast in a Function', () => {
  it('reaches the members of a channel browsers may only listen on', async () => {
    const listener = await TestSocket.open(env.broker.server.url);
    sockets.push(listener);
    await listener.request({ type: 'join', channel: 'announcements' });
    const response = await announce({ channel: 'announcements', text: 'hello' });
    const { result } = (await response.json()) as { result: { seq: number } };
    const frame = await listener.waitFor((f) => f.type === 'broadcast');
    expect(frame).toEqual({
      type: 'broadcast',
      channel: 'announcements',
      seq: result.seq,
      event: 'news',
      payload: { text: 'hello' },
      from: { kind: 'function' },
    });
  });

  it('answers REALTIME_CHANNEL_NOT_DECLARED for a channel platform.yaml does not declare', async () => {
    const response = await announce({ channel: 'elsewhere', text: 'x' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { code: 'REALTIME_CHANNEL_NOT_DECLARED' },
    });
  });
});
