import { describe, expect, it } from 'vitest';
import { defineFunction, errors, s } from '../src/index.ts';
import { createTestContext, runFunction } from '../src/testing/index.ts';

const saveTodo = defineFunction({
  input: s.object({ title: s.string({ minLength: 1 }) }),
  handler: async (ctx) => {
    if (!ctx.user) throw errors.unauthorized('SIGN_IN', 'Sign in first');
    const todo = await ctx.data
      .table('todos')
      .create({ title: ctx.input.title, owner: ctx.user.id });
    await ctx.jobs.enqueue(
      'notify',
      { todoId: String(todo.id) },
      { idempotencyKey: `todo-${String(todo.id)}` },
    );
    await ctx.email.send({
      from: 'support',
      to: 'a@b.test',
      subject: 'Saved',
      text: ctx.input.title,
    });
    ctx.log.info('saved', { id: todo.id });
    return todo;
  },
});

describe('createTestContext', () => {
  it('runs a handler in memory and captures what it did', async () => {
    const ctx = createTestContext({
      user: { id: 'u1' },
      input: { title: 'Milk' },
      data: { todos: [] },
      emailAliases: ['support'],
    });
    const todo = await saveTodo.run(ctx);
    expect(ctx.tables.todos).toEqual([todo]);
    expect(ctx.enqueuedJobs[0]).toMatchObject({
      job: { queue: 'notify' },
      payload: { todoId: todo.id },
    });
    expect(ctx.sentEmails).toMatchObject([{ subject: 'Saved', text: 'Milk' }]);
    expect(ctx.logs).toMatchObject([{ level: 'info', message: 'saved' }]);
  });

  it('parses input like the host and lets errors surface with their code', async () => {
    await expect(saveTodo.run(createTestContext({ input: { title: '' } }))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(saveTodo.run(createTestContext({ input: { title: 'x' } }))).rejects.toMatchObject({
      code: 'SIGN_IN',
    });
  });

  it('runFunction returns the result and the context; files, secrets and searches work in memory', async () => {
    const fn = defineFunction({
      input: s.object({}),
      handler: async (ctx) => {
        const ref = await ctx.files.upload({
          data: 'hi',
          name: 'a.txt',
          contentType: 'text/plain',
        });
        const { data } = await ctx.files.download(ref);
        const key = await ctx.secrets.require('KEY');
        ctx.log.info(`key ${key}`);
        const { hits } = await ctx.data.search('docs', { mode: 'fullText', query: 'a' });
        return { text: new TextDecoder().decode(data), hits: hits.length };
      },
    });
    const hit = {
      record: { id: 1 },
      fullTextScore: 1,
      fullTextRank: 1,
      vectorDistance: null,
      vectorSimilarity: null,
      vectorRank: null,
      fusionScore: null,
    };
    const { result, ctx } = await runFunction(fn, {
      secrets: { KEY: 'secret-value' },
      searches: { docs: { hits: [hit] } },
    });
    expect(result).toEqual({ text: 'hi', hits: 1 });
    expect(ctx.logs[0]?.message).toBe('key [REDACTED]');
  });
});

describe('ctx.realtime in the test kit', () => {
  const announce = defineFunction({
    input: s.object({ room: s.string() }),
    handler: async (ctx) => ctx.realtime.broadcast(`room:${ctx.input.room}`, 'hello', { n: 1 }),
  });

  it('records each broadcast with its channel, event and payload', async () => {
    const { result, ctx } = await runFunction(announce, { input: { room: '7' } });
    expect(result).toEqual({ seq: 1 });
    expect(ctx.broadcasts).toEqual([{ channel: 'room:7', event: 'hello', payload: { n: 1 } }]);
  });

  it('refuses what the broker refuses, with the same codes', async () => {
    const ctx = createTestContext({ realtimeChannels: { 'room:*': {} } });
    await expect(ctx.realtime.broadcast('lobby', 'x', null)).rejects.toMatchObject({
      code: 'REALTIME_CHANNEL_NOT_DECLARED',
    });
    await expect(ctx.realtime.broadcast('room:1', 'x', 'y'.repeat(40_000))).rejects.toMatchObject({
      code: 'REALTIME_MESSAGE_TOO_LARGE',
    });
    await expect(ctx.realtime.broadcast('bad name', 'x', 1)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(ctx.broadcasts).toEqual([]);
  });
});
