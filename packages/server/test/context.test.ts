import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PlatformError, s } from '../src/index.ts';
import { offlineText } from '../src/testing/index.ts';
import { mswBroker } from './helpers.ts';

// Every context member against the msw mock broker generated from the contract.
const net = mswBroker();

describe('data', () => {
  it('lists, reads, creates and updates rows with filters, limit and select', async () => {
    net.use({
      data: {
        todos: [
          { id: '2', title: 'b', done: true },
          { id: '1', title: 'a', done: false },
        ],
      },
    });
    const { data } = net.context().context;
    const todos = data.table('todos');
    expect(await todos.list()).toEqual([
      { id: '1', title: 'a', done: false },
      { id: '2', title: 'b', done: true },
    ]);
    expect(await todos.list({ where: { done: true }, select: ['title'] })).toEqual([
      { title: 'b' },
    ]);
    expect(await todos.list({ limit: 1 })).toHaveLength(1);
    expect(await todos.getById('1', { select: ['id'] })).toEqual({ id: '1' });
    expect(await todos.getById('9')).toBeNull();
    const created = await todos.create({ title: 'c' });
    expect(created).toMatchObject({ title: 'c', id: expect.any(String) });
    expect(await todos.updateById('1', { done: true })).toEqual({
      id: '1',
      title: 'a',
      done: true,
    });
    await expect(todos.updateById('9', { done: true })).rejects.toMatchObject({
      code: 'ROW_NOT_FOUND',
      status: 404,
    });
    await expect(data.table('nope').list()).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    expect(net.broker.requests.map((r) => r.route)).toContain('dataUpdateById');
  });

  it('search sends checked options (trimmed query, default limit) and returns hits', async () => {
    const hit = {
      record: { id: '1' },
      fullTextScore: 0.5,
      fullTextRank: 1,
      vectorDistance: null,
      vectorSimilarity: null,
      vectorRank: null,
      fusionScore: null,
    };
    net.use({ searches: { docs: () => [hit] } });
    const { data } = net.context({
      declared: {
        secrets: [],
        emailAliases: [],
        searches: { docs: { fullText: true, model: null, dimensions: null, filters: [] } },
      },
    }).context;
    expect(await data.search('docs', { mode: 'fullText', query: '  milk  ' })).toEqual({
      hits: [hit],
    });
    expect(net.broker.requests[0]?.body).toEqual({ mode: 'fullText', query: 'milk', limit: 10 });
  });
});

describe('files', () => {
  it('uploads, downloads bytes, replaces, reads info and removes', async () => {
    net.use();
    const { files } = net.context().context;
    const ref = await files.upload({
      data: new Uint8Array([1, 2, 3]),
      name: 'a.bin',
      contentType: 'application/octet-stream',
    });
    expect(typeof ref).toBe('string');
    const downloaded = await files.download(ref);
    expect(downloaded.data).toEqual(new Uint8Array([1, 2, 3]));
    expect(downloaded.data).toBeInstanceOf(Uint8Array);
    await files.replace(ref, { data: 'hello', name: 'b.txt' });
    const info = await files.info(ref);
    expect(info).toMatchObject({
      name: 'b.txt',
      size: 5,
      generation: 2,
      contentType: 'application/octet-stream',
    });
    await files.remove(ref);
    await expect(files.info(ref)).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });
});

describe('ai', () => {
  it('generates text, streams text, objects parsed by the schema, and PNG images', async () => {
    net.use({ ai: { generateObject: () => ({ total: 12.5 }) } });
    const { ai } = net.context().context;
    expect(await ai.generateText({ prompt: 'hi', instructions: 'be brief' })).toEqual({
      text: offlineText({ prompt: 'hi', instructions: 'be brief' }),
    });
    const chunks: string[] = [];
    for await (const chunk of (await ai.streamText({
      prompt: 'one two three',
    })) as unknown as AsyncIterable<string>) {
      chunks.push(chunk);
    }
    expect(chunks.join('')).toBe(offlineText({ prompt: 'one two three' }));
    const { object } = await ai.generateObject({
      prompt: 'receipt',
      schema: s.object({ total: s.number() }),
    });
    expect(object.total).toBe(12.5);
    const image = await ai.generateImage({ prompt: 'cat' });
    expect(image.contentType).toBe('image/png');
    expect([...image.data.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const sent = net.broker.requests.find((r) => r.route === 'aiGenerateObject')?.body as {
      schema: object;
    };
    expect(sent.schema).toMatchObject({
      type: 'object',
      properties: { total: { type: 'number' } },
    });
  });

  it('rejects a generated object that does not match the schema', async () => {
    net.use({ ai: { generateObject: () => ({ total: 'many' }) } });
    const { ai } = net.context().context;
    await expect(
      ai.generateObject({ prompt: 'p', schema: s.object({ total: s.number() }) }),
    ).rejects.toMatchObject({
      code: 'INVALID_RESPONSE',
    });
  });
});

describe('email, notifications, jobs, integrations, secrets, log', () => {
  it('sends email from a declared alias and notifications', async () => {
    net.use({ subscribedUsers: ['u1'] });
    const c = net.context({
      declared: { secrets: [], searches: {}, emailAliases: ['support'] },
    }).context;
    expect(
      await c.email.send({ from: 'support', to: ['a@b.test'], subject: 'Hi', text: 'Hello' }),
    ).toEqual({ id: 'email_1', captured: true });
    expect(await c.notifications.send({ to: ['u1', 'u2'], title: 'Ping' })).toEqual({
      delivered: 1,
    });
    expect(net.broker.state.emails[0]).toMatchObject({ from: 'support', subject: 'Hi' });
  });

  it('enqueues idempotently, reports key reuse, and gets jobs', async () => {
    net.use({ queues: ['emails'] });
    const { jobs } = net.context().context;
    const job = await jobs.enqueue(
      'emails',
      { to: 'a' },
      { idempotencyKey: 'k1', delaySeconds: 60, files: { read: ['f1'] } },
    );
    expect(job).toMatchObject({ queue: 'emails', state: 'queued', attempt: 0 });
    expect(await jobs.enqueue('emails', { to: 'a' }, { idempotencyKey: 'k1' })).toEqual(job);
    await expect(
      jobs.enqueue('emails', { to: 'b' }, { idempotencyKey: 'k1' }),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 409 });
    await expect(jobs.enqueue('other', {}, { idempotencyKey: 'k' })).rejects.toMatchObject({
      code: 'QUEUE_NOT_DECLARED',
    });
    expect(await jobs.get(job.id)).toEqual(job);
    await expect(jobs.get('job_404')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    expect(net.broker.state.jobs[0]?.files).toEqual(['f1']);
  });

  it('calls integration operations and emits events', async () => {
    net.use({
      integrations: { crm: { 'contacts.find': (input) => ({ found: input }) } },
      // One consumer slot subscribed to every event: a new event id is one delivery.
      eventSubscribers: [{ account: 'app', capabilities: ['contacts.read'], events: {} }],
    });
    const c = net.context({
      integration: {
        connectionId: 'c1',
        trigger: 'operation',
        operation: 'x.y',
        consumerAppId: 'app2',
      },
    }).context;
    expect(await c.integrations.use('crm').call('contacts.find', { q: 'a' })).toEqual({
      found: { q: 'a' },
    });
    await expect(c.integrations.use('erp').call('x', {})).rejects.toMatchObject({
      code: 'INTEGRATION_SLOT_NOT_DECLARED',
    });
    expect(c.integration).toMatchObject({
      connectionId: 'c1',
      trigger: 'operation',
      operation: 'x.y',
      consumerAppId: 'app2',
    });
    expect(await c.integration?.emit({ type: 'contact.created', id: 'ch1', data: { id: 1 } })).toBe(
      1,
    );
    expect(await c.integration?.emit({ type: 'contact.created', id: 'ch1', data: { id: 1 } })).toBe(
      0,
    );
  });

  it('reads secrets and redacts their values in logs', async () => {
    net.use({ secrets: { API_KEY: 'sk_live_123', EMPTY: null } });
    const built = net.context({
      declared: { secrets: ['API_KEY', 'EMPTY'], searches: {}, emailAliases: [] },
    });
    const c = built.context;
    expect(await c.secrets.get('EMPTY')).toBeUndefined();
    await expect(c.secrets.require('EMPTY')).rejects.toMatchObject({ code: 'SECRET_NOT_SET' });
    const key = await c.secrets.require('API_KEY');
    c.log.info(`calling with ${key}`, { key, nested: { header: `Bearer ${key}` }, n: 1 });
    c.log.warn('plain');
    expect(net.broker.state.logs).toHaveLength(0); // batched until the invocation ends
    await built.flush();
    expect(net.broker.state.logs).toMatchObject([
      {
        level: 'info',
        message: 'calling with [REDACTED]',
        fields: { key: '[REDACTED]', nested: { header: 'Bearer [REDACTED]' }, n: 1 },
      },
      { level: 'warn', message: 'plain' },
    ]);
    expect(JSON.stringify(net.broker.requests)).not.toContain('sk_live_123');
  });

  it('exposes identity and metadata', () => {
    net.use();
    const c = net.context({
      user: { id: 'u1' },
      job: { id: 'j1', queue: 'q', attempt: 2 },
      http: { method: 'GET', pathname: '/r/1', params: { id: '1' }, query: { a: 'b' } },
      environment: 'production',
      requestId: 'req_9',
    }).context;
    expect(c.user).toEqual({ id: 'u1' });
    expect(c.job).toEqual({ id: 'j1', queue: 'q', attempt: 2 });
    expect(c.http).toEqual({
      method: 'GET',
      pathname: '/r/1',
      params: { id: '1' },
      query: { a: 'b' },
    });
    expect(c.integration).toBeNull();
    expect([c.requestId, c.environment]).toEqual(['req_9', 'production']);
    // Spec 2.4's members: the plain ones are own properties, the clients are accessors.
    expect(Object.keys(c).sort()).toEqual(['environment', 'input', 'job', 'requestId', 'user']);
    for (const member of [
      'http',
      'integration',
      'data',
      'files',
      'ai',
      'email',
      'notifications',
      'realtime',
      'jobs',
      'integrations',
      'secrets',
      'log',
    ] as const) {
      expect(c[member], member).toBeDefined();
    }
  });
});

describe('members', () => {
  it('are the same object on every read, also through a derived context, and hide the token', async () => {
    net.use({ secrets: { API_KEY: 'sk_live_456' }, token: 'inv_not_for_printing' });
    const built = net.context({
      declared: { secrets: ['API_KEY'], searches: {}, emailAliases: [] },
    });
    const c = built.context;
    expect(c.data).toBe(c.data);
    expect(c.log).toBe(c.log);
    // defineFunction and the testing helpers hand the handler a context derived with Object.create.
    const derived = Object.create(c, { input: { value: 'x', enumerable: true } }) as typeof c;
    expect(derived.data).toBe(c.data);
    // The logger made before the secret was read still redacts it: both share one memory.
    const log = derived.log;
    const key = await derived.secrets.require('API_KEY');
    log.info(`key ${key}`);
    await built.flush();
    expect(net.broker.state.logs).toMatchObject([{ message: 'key [REDACTED]' }]);
    const printed = inspect(c, { depth: 10, showHidden: true });
    expect(printed).toContain('requestId');
    expect(printed).not.toContain('inv_not_for_printing');
  });
});

describe('transport', () => {
  it('sends the token, pinned version and request id; maps broker errors to PlatformError', async () => {
    net.use({
      routes: {
        jobsGet: () => {
          throw new PlatformError({ code: 'JOB_NOT_FOUND', message: 'gone', details: { id: 'x' } });
        },
      },
    });
    const c = net.context({ sdkVersion: '2.4.1', requestId: 'req_7' }).context;
    const error = await c.jobs.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      code: 'JOB_NOT_FOUND',
      status: 404,
      details: { id: 'x' },
      requestId: 'req_7',
    });
    expect(net.broker.requests[0]?.sdkVersion).toBe('2.4.1');
  });

  it('rejects a wrong token with INVOCATION_TOKEN_INVALID and an unreachable broker with NETWORK_ERROR', async () => {
    net.use();
    const wrong = net.context({ broker: { url: net.broker.url, token: 'forged' } }).context;
    await expect(wrong.jobs.get('x')).rejects.toMatchObject({
      code: 'INVOCATION_TOKEN_INVALID',
      status: 401,
    });
    const { buildContext } = await import('../src/context/create-context.ts');
    const down = buildContext(net.broker.invocation(), {}, () =>
      Promise.reject(new TypeError('fetch failed')),
    ).context;
    await expect(down.jobs.get('x')).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      retryable: true,
    });
  });

  it('answers INVALID_RESPONSE when the broker breaks the contract', async () => {
    net.use({ routes: { jobsGet: () => ({ job: { id: 1 } }) as never } });
    const c = net.context().context;
    await expect(c.jobs.get('x')).rejects.toMatchObject({ code: 'INTERNAL' });
    const { buildContext } = await import('../src/context/create-context.ts');
    const bad = buildContext(net.broker.invocation(), {}, async () =>
      Response.json({ job: { id: 1 } }),
    ).context;
    await expect(bad.jobs.get('x')).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });
});
