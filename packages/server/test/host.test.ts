import { describe, expect, it } from 'vitest';
import { createFunctionHost, defineFunction, errors, runInvocation, s } from '../src/index.ts';
import { createMockBroker, offlineText } from '../src/testing/index.ts';

const echo = defineFunction({
  input: s.object({ n: s.number() }),
  handler: (ctx) => ({ n: ctx.input.n }),
});
const broker = createMockBroker({ data: { todos: [] } });
const run = (fn: Parameters<typeof runInvocation>[0], overrides: object = {}) =>
  runInvocation(fn, broker.invocation(overrides as never), { fetch: broker.fetch });

describe('runInvocation', () => {
  it('parses input, runs the handler and answers { result }', async () => {
    const response = await run(echo, { input: { n: 2 }, requestId: 'req_1' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toEqual({ result: { n: 2 } });
  });

  it('answers { result: null } for undefined', async () => {
    const fn = defineFunction({ input: s.object({}), handler: () => undefined });
    expect(await (await run(fn)).json()).toEqual({ result: null });
  });

  it('answers 400 INVALID_INPUT with issues before the handler runs', async () => {
    let ran = false;
    const fn = defineFunction({
      input: s.object({ n: s.number() }),
      handler: () => {
        ran = true;
      },
    });
    const response = await run(fn, { input: { n: 'x' } });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: [{ path: 'n' }] },
      requestId: 'req_test',
    });
    expect(ran).toBe(false);
  });

  it('covers the cron envelope: a schema that rejects it gets 400, one that accepts it runs', async () => {
    const envelope = {
      source: 'platform.cron',
      name: 'nightly',
      scheduledAt: '2026-01-01T00:00:00Z',
    };
    const strict = defineFunction({ input: s.object({}), handler: () => 'ran' });
    expect((await run(strict, { input: envelope })).status).toBe(400);
    const cron = defineFunction({
      input: s.object({
        source: s.literal('platform.cron'),
        name: s.string(),
        scheduledAt: s.string(),
      }),
      handler: (ctx) => ctx.input.name,
    });
    expect(await (await run(cron, { input: envelope })).json()).toEqual({ result: 'nightly' });
  });

  it('passes expected errors through with code, status and details', async () => {
    const fn = defineFunction({
      input: s.object({}),
      handler: () => {
        throw errors.notFound('TODO_NOT_FOUND', 'No todo 42', { id: '42' });
      },
    });
    const response = await run(fn, { environment: 'production' });
    expect(response.status).toBe(404);
    expect((await response.json()).error).toEqual({
      code: 'TODO_NOT_FOUND',
      message: 'No todo 42',
      retryable: false,
      details: { id: '42' },
      requestId: 'req_test',
    });
  });

  it('hides unknown errors in production and keeps the message in development', async () => {
    const fn = defineFunction({
      input: s.object({}),
      handler: () => {
        throw new Error('db password is hunter2');
      },
    });
    const prod = await run(fn, { environment: 'production' });
    expect(prod.status).toBe(500);
    expect((await prod.json()).error).toMatchObject({
      code: 'FUNCTION_FAILED',
      message: 'The Function failed.',
    });
    const dev = await run(fn, { environment: 'development' });
    expect((await dev.json()).error).toMatchObject({
      code: 'FUNCTION_FAILED',
      message: 'db password is hunter2',
    });
    expect(
      broker.state.logs.some((l) => l.level === 'error' && l.message.includes('Unhandled')),
    ).toBe(true);
  });

  it('streams a ReadableStream or an async iterable result and flushes logs at the end', async () => {
    const gen = defineFunction({
      input: s.object({}),
      handler: async function* (ctx) {
        ctx.log.info('streaming');
        yield 'a';
        yield new Uint8Array([98]);
        yield 'c';
      },
    });
    const response = await run(gen);
    expect(response.headers.get('x-platform-stream')).toBe('1');
    expect(await response.text()).toBe('abc');
    expect(broker.state.logs.at(-1)?.message).toBe('streaming');
    const ai = defineFunction({
      input: s.object({}),
      handler: (ctx) => ctx.ai.streamText({ prompt: 'x y' }),
    });
    expect(await (await run(ai)).text()).toBe(offlineText({ prompt: 'x y' }));
  });

  it('answers INVALID_REQUEST for a malformed invocation and FUNCTION_FAILED for non-JSON results', async () => {
    const bad = await runInvocation(echo, { input: {} });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('INVALID_REQUEST');
    const big = defineFunction({ input: s.object({}), handler: () => ({ n: 1n }) });
    expect((await (await run(big)).json()).error.code).toBe('FUNCTION_FAILED');
  });

  it('uses the context end to end (data create through the broker)', async () => {
    const save = defineFunction({
      input: s.object({ title: s.string() }),
      handler: (ctx) => ctx.data.table('todos').create({ title: ctx.input.title }),
    });
    const body = await (await run(save, { input: { title: 'milk' } })).json();
    expect(body.result).toMatchObject({ title: 'milk' });
    expect(broker.state.tables.get('todos')).toHaveLength(1);
  });
});

describe('createFunctionHost', () => {
  const host = createFunctionHost(echo, { hostToken: 'h', fetch: broker.fetch });
  const post = (body: unknown, token = 'h') =>
    host(
      new Request('http://host/_platform/invoke', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );

  it('serves health and invoke, checks the host token, rejects bad JSON and unknown routes', async () => {
    expect(await (await host(new Request('http://host/_platform/health'))).json()).toEqual({
      ok: true,
      sdkVersion: '2.6.0',
    });
    expect(await (await post(broker.invocation({ input: { n: 5 } }))).json()).toEqual({
      result: { n: 5 },
    });
    expect((await post(broker.invocation(), 'wrong')).status).toBe(401);
    expect((await (await post('{')).json()).error.code).toBe('INVALID_REQUEST');
    expect((await host(new Request('http://host/else'))).status).toBe(404);
    expect((await host(new Request('http://host/_platform/invoke'))).status).toBe(405);
  });

  it('routes by path alone: a query is ignored, a longer path is not the invoke route', async () => {
    const invoke = (url: string) =>
      host(
        new Request(url, {
          method: 'POST',
          headers: { authorization: 'Bearer h' },
          body: JSON.stringify(broker.invocation({ input: { n: 1 } })),
        }),
      );
    expect(await (await invoke('http://127.0.0.1:9/_platform/invoke?trace=1')).json()).toEqual({
      result: { n: 1 },
    });
    const longer = await invoke('http://host/_platform/invoke/more');
    expect(longer.status).toBe(404);
    expect((await longer.json()).error.code).toBe('ROUTE_NOT_FOUND');
    expect((await host(new Request('http://host'))).status).toBe(404);
  });
});
