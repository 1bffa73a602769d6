// Runs under real Deno (see ../deno.test.ts): a mock broker and the function host both served
// with Deno.serve on 127.0.0.1, the context calling the broker over real HTTP.
import { defineFunction, errors, PLATFORM_SDK_VERSION, s } from '@platform/server';
import { serveFunction } from '@platform/server/host';
import { createMockBroker, createTestContext, offlineText } from '@platform/server/testing';

declare const Deno: {
  test(name: string, fn: () => Promise<void> | void): void;
  serve(
    options: { hostname: string; port: number; onListen?: (addr: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
};

function assertEquals(actual: unknown, expected: unknown, message = ''): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message} expected ${e}, got ${a}`);
}

const everything = defineFunction({
  input: s.object({ title: s.string() }),
  handler: async (ctx) => {
    const todos = ctx.data.table('todos');
    const todo = await todos.create({ title: ctx.input.title });
    await todos.updateById(String(todo.id), { done: true });
    const listed = await todos.list({ where: { done: true }, select: ['title'] });
    const ref = await ctx.files.upload({
      data: new Uint8Array([1, 2, 3]),
      name: 'a.bin',
      contentType: 'application/octet-stream',
    });
    const file = await ctx.files.download(ref);
    await ctx.files.replace(ref, { data: 'four' });
    const info = await ctx.files.info(ref);
    await ctx.files.remove(ref);
    const text = await ctx.ai.generateText({ prompt: 'hi' });
    const image = await ctx.ai.generateImage({ prompt: 'cat' });
    const object = await ctx.ai.generateObject({ prompt: 'o', schema: s.object({}) });
    const mail = await ctx.email.send({ from: 'support', to: 'a@b.test', subject: 's', text: 't' });
    const push = await ctx.notifications.send({ to: 'u1', title: 't' });
    const job = await ctx.jobs.enqueue(
      'q',
      { a: 1 },
      { idempotencyKey: 'k', files: { read: ['f1'] } },
    );
    const again = await ctx.jobs.get(job.id);
    const op = await ctx.integrations.use('crm').call('ping', { x: 1 });
    const deliveries = await ctx.integration?.emit({ type: 'thing.changed', id: 'c1', data: {} });
    const secret = await ctx.secrets.require('KEY');
    ctx.log.info(`secret is ${secret}`);
    const hits = await ctx.data.search('docs', { mode: 'vector', vector: [1, 0], model: 'm' });
    let checked = '';
    try {
      await ctx.jobs.enqueue('q', {}, { idempotencyKey: 'k2', delaySeconds: 10 ** 9 });
    } catch (error) {
      checked = (error as { code: string }).code;
    }
    return {
      listed,
      bytes: [...file.data],
      size: info.size,
      text: text.text,
      png: image.data[1],
      object: object.object,
      captured: mail.captured,
      push: push.delivered,
      job: again.id === job.id,
      op,
      deliveries,
      hits: hits.hits.length,
      checked,
      user: ctx.user,
      sdk: PLATFORM_SDK_VERSION,
    };
  },
});

async function serveBoth(fn: Parameters<typeof serveFunction>[0]) {
  const broker = createMockBroker({
    url: 'http://127.0.0.1:1', // replaced below with the bound port
    data: { todos: [] },
    secrets: { KEY: 'sk_123' },
    integrations: { crm: { ping: (input) => ({ pong: input }) } },
    searches: { docs: () => [] },
    // One device of u1, and one slot subscribed to every event: each send and emit reaches one.
    subscribedUsers: ['u1'],
    eventSubscribers: [{ account: 'app', capabilities: [], events: {} }],
  });
  let brokerPort = 0;
  const brokerServer = Deno.serve(
    {
      hostname: '127.0.0.1',
      port: 0,
      onListen: (a) => {
        brokerPort = a.port;
      },
    },
    broker.fetch,
  );
  let hostPort = 0;
  const ready = new Promise<void>((resolve) => {
    const server = serveFunction(fn, {
      port: 0,
      hostToken: 'host-secret',
      onListen: (port) => {
        hostPort = port;
        resolve();
      },
    });
    servers.push(server);
  });
  await ready;
  servers.push(brokerServer);
  const invoke = (overrides: Record<string, unknown>) =>
    fetch(`http://127.0.0.1:${hostPort}/_platform/invoke`, {
      method: 'POST',
      headers: { authorization: 'Bearer host-secret' },
      body: JSON.stringify({
        ...broker.invocation(),
        broker: { url: `http://127.0.0.1:${brokerPort}`, token: broker.token },
        declared: {
          secrets: ['KEY'],
          emailAliases: ['support'],
          searches: { docs: { fullText: true, model: 'm', dimensions: 2, filters: [] } },
        },
        ...overrides,
      }),
    });
  return { broker, invoke };
}

const servers: { shutdown(): Promise<void> }[] = [];
const closeAll = async () => {
  await Promise.all(servers.splice(0).map((s) => s.shutdown()));
};

Deno.test('every context member works against the mock broker over real HTTP', async () => {
  try {
    const { broker, invoke } = await serveBoth(everything);
    const response = await invoke({
      input: { title: 'milk' },
      user: { id: 'u1' },
      integration: { connectionId: 'c1', trigger: 'sync' },
    });
    const body = await response.json();
    assertEquals(response.status, 200, JSON.stringify(body));
    assertEquals(body.result, {
      listed: [{ title: 'milk' }],
      bytes: [1, 2, 3],
      size: 4,
      text: offlineText({ prompt: 'hi' }),
      png: 0x50,
      object: {},
      captured: true,
      push: 1,
      job: true,
      op: { pong: { x: 1 } },
      deliveries: 1,
      hits: 0,
      checked: 'LIMIT_EXCEEDED',
      user: { id: 'u1' },
      sdk: PLATFORM_SDK_VERSION,
    });
    assertEquals(
      broker.state.logs.map((l) => l.message),
      ['secret is [REDACTED]'],
    );
    assertEquals(
      broker.requests.some(
        (r) =>
          r.route === 'jobsEnqueue' &&
          (r.body as { idempotencyKey: string }).idempotencyKey === 'k2',
      ),
      false,
    );
  } finally {
    await closeAll();
  }
});

Deno.test('the host answers 400, passes expected errors, hides unknown ones and streams', async () => {
  try {
    const fn = defineFunction({
      input: s.object({ mode: s.enum(['ok', 'expected', 'unknown', 'stream', 'old']) }),
      handler: async (ctx) => {
        if (ctx.input.mode === 'expected') throw errors.conflict('TAKEN', 'Taken', { by: 'x' });
        if (ctx.input.mode === 'unknown') throw new Error('secret detail');
        if (ctx.input.mode === 'stream') return ctx.ai.streamText({ prompt: 'streams over http' });
        if (ctx.input.mode === 'old') return ctx.integration;
        return 'ok';
      },
    });
    const { invoke } = await serveBoth(fn);
    const bad = await invoke({ input: { mode: 'nope' } });
    assertEquals([bad.status, (await bad.json()).error.code], [400, 'INVALID_INPUT']);
    const cron = await invoke({
      input: { source: 'platform.cron', name: 'n', scheduledAt: '2026-01-01T00:00:00Z' },
    });
    assertEquals([cron.status, (await cron.json()).error.code], [400, 'INVALID_INPUT']);
    const expected = await invoke({ input: { mode: 'expected' }, environment: 'production' });
    assertEquals(
      [expected.status, (await expected.json()).error],
      [
        409,
        {
          code: 'TAKEN',
          message: 'Taken',
          retryable: false,
          details: { by: 'x' },
          requestId: 'req_test',
        },
      ],
    );
    const unknown = await invoke({ input: { mode: 'unknown' }, environment: 'production' });
    assertEquals(
      [unknown.status, (await unknown.json()).error.message],
      [500, 'The Function failed.'],
    );
    const stream = await invoke({ input: { mode: 'stream' } });
    assertEquals(
      [stream.headers.get('x-platform-stream'), await stream.text()],
      ['1', offlineText({ prompt: 'streams over http' })],
    );
    const old = await invoke({ input: { mode: 'old' }, sdkVersion: '2.3.0' });
    assertEquals([old.status, (await old.json()).error.code], [400, 'SDK_VERSION_UNSUPPORTED']);
  } finally {
    await closeAll();
  }
});

Deno.test('the testing helper runs a Function in memory', async () => {
  const fn = defineFunction({
    input: s.object({ title: s.string() }),
    handler: (ctx) => ctx.data.table('todos').create({ title: ctx.input.title }),
  });
  const ctx = createTestContext({ input: { title: 'a' }, data: { todos: [] } });
  const todo = await fn.run(ctx);
  assertEquals(ctx.tables.todos, [todo]);
});
