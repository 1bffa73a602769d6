import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(
    {
      '.platform/secrets.json': JSON.stringify({
        API_KEY: 'sk_live_very_secret',
        OTHER: 'not-declared-value',
      }),
      'functions/context.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ step: s.string() }),
  handler: async (ctx) => {
    if (ctx.input.step === 'secret') {
      const key = await ctx.secrets.require('API_KEY');
      ctx.log.warn('using key ' + key, { key });
      return key.length;
    }
    if (ctx.input.step === 'undeclared') return ctx.secrets.get('OTHER');
    if (ctx.input.step === 'email') {
      return ctx.email.send({ from: 'support', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
    }
    if (ctx.input.step === 'files') {
      const ref = await ctx.files.upload({ data: new TextEncoder().encode('abc'), name: 'a.txt', contentType: 'text/plain' });
      await ctx.files.replace(ref, { data: new TextEncoder().encode('abc'), name: 'a.txt' });
      const info = await ctx.files.info(ref);
      const down = await ctx.files.download(ref);
      return { generation: info.generation, contentType: info.contentType, text: new TextDecoder().decode(down.data) };
    }
    if (ctx.input.step === 'jobs') return ctx.jobs.enqueue('q', {}, { idempotencyKey: 'k' });
    return null;
  },
});
`,
    },
    { declared: { secrets: ['API_KEY'], searches: {}, emailAliases: ['support'] } },
  );
  await env.broker.addFunction({
    name: 'context',
    entrypoint: 'functions/context.ts',
    access: 'user',
  });
});
afterAll(() => env.cleanup());

const call = async (step: string) => {
  const response = await env.broker.app.request('/_platform/api/functions/context', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': ALICE },
    body: JSON.stringify({ step }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('context members through the real SDK', () => {
  it('reads declared secrets and never logs their values', async () => {
    expect(await call('secret')).toEqual({ status: 200, body: { result: 19 } });
    const printed = env.lines.join('\n');
    expect(printed).toContain('using key');
    expect(printed).not.toContain('sk_live_very_secret');
    expect(JSON.stringify(env.broker.logs.list())).not.toContain('sk_live_very_secret');
    const undeclared = await call('undeclared');
    expect(undeclared.status).toBe(400);
    expect(undeclared.body).toMatchObject({ error: { code: 'SECRET_NOT_DECLARED' } });
    expect(JSON.stringify(undeclared.body)).not.toContain('not-declared-value');
  });

  it('captures email in the outbox, listed over the broker API', async () => {
    const sent = await call('email');
    expect(sent).toMatchObject({ status: 200, body: { result: { captured: true } } });
    const listed = (await (
      await env.broker.app.request(`/v1/apps/${env.broker.appId}/outbox`)
    ).json()) as {
      emails: unknown[];
    };
    expect(listed.emails).toMatchObject([
      { from: 'support', to: ['ada@example.com'], subject: 'Hi', functionName: 'context' },
    ]);
  });

  it('stores files with generations', async () => {
    expect(await call('files')).toEqual({
      status: 200,
      body: { result: { generation: 2, contentType: 'text/plain', text: 'abc' } },
    });
  });

  it('serves jobs: an undeclared queue is QUEUE_NOT_DECLARED', async () => {
    const jobs = await call('jobs');
    expect(jobs).toMatchObject({ status: 404, body: { error: { code: 'QUEUE_NOT_DECLARED' } } });
  });
});
