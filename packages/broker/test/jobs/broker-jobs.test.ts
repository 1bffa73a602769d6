import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/jobs/job-rows.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor } from '../helpers/broker.ts';
import { queue, waitFor } from './engine-helpers.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(
    {
      'migrations/001_seen.sql':
        'create table seen (id serial primary key, job_id text, queue text, attempt int, note text);',
      'functions/produce.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ step: s.string(), id: s.optional(s.string()), delay: s.optional(s.number()) }),
  handler: async (ctx) => {
    if (ctx.input.step === 'enqueue') return ctx.jobs.enqueue('work', { n: 1 }, { idempotencyKey: 'k1' });
    if (ctx.input.step === 'reuse') return ctx.jobs.enqueue('work', { n: 2 }, { idempotencyKey: 'k1' });
    if (ctx.input.step === 'undeclared') return ctx.jobs.enqueue('nope', {}, { idempotencyKey: 'k' });
    if (ctx.input.step === 'get') return ctx.jobs.get(ctx.input.id ?? '');
    const ref = await ctx.files.upload({ data: new TextEncoder().encode('hello'), name: 'a.txt', contentType: 'text/plain' });
    const job = await ctx.jobs.enqueue('work', { ref }, { idempotencyKey: 'file-' + ctx.input.step, delaySeconds: ctx.input.delay, files: { read: [ref] } });
    return { job, ref };
  },
});
`,
      'functions/consume.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ n: s.optional(s.number()), ref: s.optional(s.string()) }),
  handler: async (ctx) => {
    let note = 'n=' + ctx.input.n;
    if (ctx.input.ref) note = new TextDecoder().decode((await ctx.files.download(ctx.input.ref)).data);
    await ctx.data.table('seen').create({ job_id: ctx.job?.id, queue: ctx.job?.queue, attempt: ctx.job?.attempt, note });
    return null;
  },
});
`,
      'functions/tick.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ source: s.literal('platform.cron'), name: s.string(), scheduledAt: s.string() }),
  handler: async (ctx) => {
    await ctx.data.table('seen').create({ note: ctx.input.source + ' ' + ctx.input.name + ' ' + ctx.input.scheduledAt + ' job=' + String(ctx.job) });
    return null;
  },
});
`,
      'functions/strict.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => {
    await ctx.data.table('seen').create({ note: 'strict handler ran' });
    return null;
  },
});
`,
    },
    {
      jobs: {
        queues: [queue('work', 'consume', { maxAttempts: 2, retryDelaySeconds: 1 })],
        cron: [
          { name: 'tick', schedule: '0 0 1 1 *', function: 'tick', enabled: true, timezone: 'UTC' },
          {
            name: 'strict',
            schedule: '0 0 1 1 *',
            function: 'strict',
            enabled: true,
            timezone: 'UTC',
          },
        ],
        pollMs: 50,
      },
    },
  );
  await Promise.all([
    env.broker.addFunction({ name: 'produce', entrypoint: 'functions/produce.ts', access: 'user' }),
    env.broker.addFunction({
      name: 'consume',
      entrypoint: 'functions/consume.ts',
      access: 'system',
    }),
    env.broker.addFunction({ name: 'tick', entrypoint: 'functions/tick.ts', access: 'system' }),
    env.broker.addFunction({ name: 'strict', entrypoint: 'functions/strict.ts', access: 'system' }),
  ]);
});
afterAll(() => env.cleanup());

const produce = async (input: Record<string, unknown>) => {
  const response = await env.broker.app.request('/_platform/api/functions/produce', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': ALICE },
    body: JSON.stringify(input),
  });
  return {
    status: response.status,
    body: (await response.json()) as { result: never; error: { code: string } },
  };
};
const api = async (path: string) => {
  const response = await env.broker.app.request(path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const seen = async () =>
  (
    await env.broker.db.query<{
      job_id: string | null;
      queue: string | null;
      attempt: number | null;
      note: string;
    }>('select job_id, queue, attempt, note from seen order by id')
  ).rows;
const settled = (id: string) =>
  waitFor(async () => {
    const job = await env.broker.jobs.service.get(id);
    return job.state === 'succeeded' || job.state === 'dead_lettered' ? job : undefined;
  });

describe('jobs through the runtime contract and a real consumer', () => {
  it('enqueues from a Function, runs the consumer with ctx.job and reads the status back', async () => {
    const first = await produce({ step: 'enqueue' });
    expect(first.status).toBe(200);
    const job = first.body.result as Job;
    expect(job).toMatchObject({ queue: 'work', state: 'queued', attempt: 0, maxAttempts: 2 });
    // Same key and payload: the original job; another payload: IDEMPOTENCY_KEY_REUSED.
    expect((await produce({ step: 'enqueue' })).body.result).toMatchObject({ id: job.id });
    expect(await produce({ step: 'reuse' })).toMatchObject({
      status: 409,
      body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } },
    });
    expect(await produce({ step: 'undeclared' })).toMatchObject({
      status: 404,
      body: { error: { code: 'QUEUE_NOT_DECLARED' } },
    });
    await settled(job.id);
    const status = await produce({ step: 'get', id: job.id });
    expect(status.body.result).toMatchObject({
      id: job.id,
      state: 'succeeded',
      attempt: 1,
      lastError: null,
    });
    expect(await produce({ step: 'get', id: 'job_nope' })).toMatchObject({
      status: 404,
      body: { error: { code: 'JOB_NOT_FOUND' } },
    });
    expect(await seen()).toContainEqual({ job_id: job.id, queue: 'work', attempt: 1, note: 'n=1' });
  });

  it('pins delegated files to their generation: a replaced file gives FILE_INPUT_CHANGED', async () => {
    const kept = await produce({ step: 'kept' });
    const changed = await produce({ step: 'changed', delay: 2 });
    const { job, ref } = changed.body.result as { job: Job; ref: string };
    // Identical bytes, still a new generation.
    await env.broker.files.replace(userCaller(ALICE), ref, {
      data: new TextEncoder().encode('hello'),
    });
    const keptJob = await settled((kept.body.result as { job: Job }).job.id);
    expect(keptJob.state).toBe('succeeded');
    expect(await seen()).toContainEqual(
      expect.objectContaining({ job_id: keptJob.id, note: 'hello' }),
    );
    const dead = await settled(job.id);
    expect(dead).toMatchObject({
      state: 'dead_lettered',
      attempt: 1,
      lastError: { code: 'FILE_INPUT_CHANGED' },
    });
  });

  it('runs cron Functions with the envelope, and a schema that rejects it gets HTTP 400 before the handler', async () => {
    const tick = await env.broker.jobs.scheduler.trigger('tick');
    const strict = await env.broker.jobs.scheduler.trigger('strict');
    await waitFor(async () => (await seen()).some((r) => r.note.startsWith('platform.cron tick')));
    expect(await seen()).toContainEqual(
      expect.objectContaining({ note: `platform.cron tick ${tick.scheduledAt} job=null` }),
    );
    const row = await waitFor(async () => {
      const { rows } = await env.broker.db.query<{
        state: string;
        last_error: { code: string; status: number };
      }>('select state, last_error from platform.jobs where id = $1', [strict.runId]);
      return rows[0]?.state === 'dead_lettered' ? rows[0] : undefined;
    });
    expect(row.last_error).toMatchObject({ code: 'INVALID_INPUT', status: 400 });
    expect((await seen()).map((r) => r.note)).not.toContain('strict handler ran');
  });
});

describe('the jobs API', () => {
  it('lists safe metadata newest first, filters inclusively and pages with cursors', async () => {
    const all = await api(`/v1/apps/${env.broker.appId}/jobs?limit=100`);
    expect(all.status).toBe(200);
    const jobs = all.body.jobs as Job[];
    expect(jobs.length).toBe(3);
    expect(all.body.nextCursor).toBeNull();
    expect(jobs.map((j) => j.createdAt)).toEqual(
      [...jobs.map((j) => j.createdAt)].sort().reverse(),
    );
    const text = JSON.stringify(all.body);
    for (const secret of [
      'k1',
      'file-kept',
      'hello',
      'payload',
      'idempotency',
      ALICE,
      'platform.cron',
    ])
      expect(text).not.toContain(secret);
    expect(Object.keys(jobs[0] ?? {}).sort()).toEqual([
      'attempt',
      'createdAt',
      'finishedAt',
      'id',
      'lastError',
      'maxAttempts',
      'queue',
      'runAt',
      'state',
      'updatedAt',
    ]);

    const page1 = await api(`/v1/apps/${env.broker.appId}/jobs?limit=2`);
    const page2 = await api(
      `/v1/apps/${env.broker.appId}/jobs?limit=2&cursor=${page1.body.nextCursor}`,
    );
    expect([...(page1.body.jobs as Job[]), ...(page2.body.jobs as Job[])].map((j) => j.id)).toEqual(
      jobs.map((j) => j.id),
    );
    expect(page2.body.nextCursor).toBeNull();

    const oldest = jobs[jobs.length - 1] as Job;
    const exact = await api(
      `/v1/apps/${env.broker.appId}/jobs?from=${oldest.createdAt}&to=${oldest.createdAt}`,
    );
    expect((exact.body.jobs as Job[]).map((j) => j.id)).toEqual([oldest.id]);
    const dead = await api(`/v1/apps/${env.broker.appId}/jobs?state=dead_lettered&queue=work`);
    expect((dead.body.jobs as Job[]).map((j) => j.state)).toEqual(['dead_lettered']);

    expect(await api(`/v1/apps/${env.broker.appId}/jobs/${oldest.id}`)).toEqual({
      status: 200,
      body: { job: oldest },
    });
    expect(await api(`/v1/apps/${env.broker.appId}/jobs/job_missing`)).toMatchObject({
      status: 404,
      body: { error: { code: 'JOB_NOT_FOUND' } },
    });
    expect(await api('/v1/apps/other/jobs')).toMatchObject({
      status: 404,
      body: { error: { code: 'APP_NOT_FOUND' } },
    });
    expect(await api(`/v1/apps/${env.broker.appId}/jobs?state=done`)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
    expect(await api(`/v1/apps/${env.broker.appId}/jobs?limit=101`)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
    expect(await api(`/v1/apps/${env.broker.appId}/jobs?from=yesterday`)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
    expect(await api(`/v1/apps/${env.broker.appId}/jobs?cursor=bogus`)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_INPUT' } },
    });
  });
});
