import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/jobs/job-rows.ts';
import { authBroker, FakeBrowser } from '../auth/helpers.ts';
import { queue, waitFor } from '../jobs/engine-helpers.ts';

const ADA = 'ada@example.com';

let env: Awaited<ReturnType<typeof authBroker>>;

beforeAll(async () => {
  env = await authBroker({
    files: {
      'migrations/001_seen.sql':
        'create table seen (id serial primary key, job_id text, note text);',
      'functions/produce.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ key: s.string(), delay: s.number() }),
  handler: async (ctx) => {
    const ref = await ctx.files.upload({ data: new TextEncoder().encode('hello'), name: 'a.txt', contentType: 'text/plain' });
    return ctx.jobs.enqueue('work', { ref }, { idempotencyKey: ctx.input.key, delaySeconds: ctx.input.delay, files: { read: [ref] } });
  },
});
`,
      'functions/consume.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ ref: s.string() }),
  handler: async (ctx) => {
    const note = new TextDecoder().decode((await ctx.files.download(ctx.input.ref)).data);
    await ctx.data.table('seen').create({ job_id: ctx.job?.id, note });
    return null;
  },
});
`,
    },
    jobs: { queues: [queue('work', 'consume', { maxAttempts: 1 })], cron: [], pollMs: 50 },
  });
  await Promise.all([
    env.broker.addFunction({ name: 'produce', entrypoint: 'functions/produce.ts', access: 'user' }),
    env.broker.addFunction({
      name: 'consume',
      entrypoint: 'functions/consume.ts',
      access: 'system',
    }),
  ]);
});
afterAll(() => env?.cleanup());

const settled = (id: string) =>
  waitFor(async () => {
    const job = await env.broker.jobs.service.get(id);
    return job.state === 'succeeded' || job.state === 'dead_lettered' ? job : undefined;
  });

describe("a job's delegated file grant and its delegator's access", () => {
  it('lets the consumer read while the enqueuing user may open the private app, and ends when their access is revoked', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(ADA);
    await env.broker.auth.grantAccess(ADA);
    const { token } = (await browser.session()).body as { token: string };
    const produce = async (input: { key: string; delay: number }) => {
      const response = await env.broker.app.request('/_platform/api/functions/produce', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(input),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { result: Job }).result;
    };

    const read = await settled((await produce({ key: 'while-granted', delay: 0 })).id);
    expect(read.state).toBe('succeeded');

    const later = await produce({ key: 'after-revoke', delay: 1 });
    await env.broker.auth.revokeAccess(ADA);
    expect(await settled(later.id)).toMatchObject({
      state: 'dead_lettered',
      lastError: { code: 'PERMISSION_DENIED' },
    });
    const { rows } = await env.broker.db.query<{ job_id: string }>('select job_id from seen');
    expect(rows.map((r) => r.job_id)).toEqual([read.id]);
  });

  it('refuses a ref holder whose access to the private app was revoked at the edge, before the file is read', async () => {
    const grace = 'grace@example.com';
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail(grace);
    await env.broker.auth.grantAccess(grace);
    const { token } = (await browser.session()).body as { token: string };
    const headers = { authorization: `Bearer ${token}` };
    const upload = await env.broker.app.request('/_platform/api/files?name=b.txt', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'kept',
    });
    const { file } = (await upload.json()) as { file: { ref: string } };
    const download = () => env.broker.app.request(`/_platform/api/files/${file.ref}`, { headers });
    expect(await (await download()).text()).toBe('kept');
    await env.broker.auth.revokeAccess(grace);
    const refused = await download();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'ACCESS_DENIED' } });
  });

  it('counts a delegator as admitted while their account exists and may open the private app', async () => {
    const { auth } = env.broker;
    await new FakeBrowser(env.broker).signInByEmail('lin@example.com');
    const lin = (await auth.account('lin@example.com'))!;
    expect(await auth.stillAdmits(lin.id)).toBe(false);
    await auth.grantAccess(lin.email);
    expect(await auth.stillAdmits(lin.id)).toBe(true);
    // An account that no longer exists (deleted) never admits again.
    expect(await auth.stillAdmits('00000000-0000-4000-8000-000000000000')).toBe(false);
  });
});
