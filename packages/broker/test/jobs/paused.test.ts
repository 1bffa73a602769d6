// Spec 3.3 with the job engine: while the owner's account is paused for verification, the job
// worker claims nothing (no attempt consumed, spec 3.1), cron creates no runs and inbound mail is
// deferred (SMTP 451); confirming resumes them. Time moves by the injected clock (sign-in, jobs and cron share it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpReplyFor } from '../../src/inbound-mail/smtp-listener.ts';
import { authBroker, confirmByEmail, DAY, HOUR, MINUTE, TestClock } from '../auth/helpers.ts';
import { queue, waitFor } from './engine-helpers.ts';

const clock = new TestClock(Date.parse('2025-03-03T10:00:00Z'));
let env: Awaited<ReturnType<typeof authBroker>>;

beforeAll(async () => {
  env = await authBroker({
    clock,
    auth: { ownerUnconfirmed: true, visibility: 'public' },
    files: {
      'migrations/001_seen.sql': 'create table seen (id serial primary key, note text);',
      'functions/work.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ n: s.optional(s.number()), source: s.optional(s.string()), name: s.optional(s.string()), scheduledAt: s.optional(s.string()) }),
  handler: async (ctx) => {
    await ctx.data.table('seen').create({ note: ctx.input.scheduledAt ?? 'job ' + ctx.input.n });
    return null;
  },
});
`,
      'functions/inbound.ts': `
import { defineFunction, inboundEmailSchema } from '@platform/server';
export default defineFunction({
  input: inboundEmailSchema,
  handler: async (ctx) => {
    await ctx.data.table('seen').create({ note: 'mail ' + ctx.input.subject });
    return null;
  },
});
`,
    },
    broker: {
      declared: { secrets: [], searches: {}, emailAliases: ['todo'] },
      inboundFunction: 'inbound',
    },
    jobs: {
      queues: [queue('work', 'work')],
      cron: [
        { name: 'hourly', schedule: '0 * * * *', function: 'work', enabled: true, timezone: 'UTC' },
      ],
      clock,
      pollMs: 50,
      // The worker runs; the test ticks the scheduler itself (no background tick races it).
      run: false,
    },
  });
  await env.broker.addFunction({ name: 'work', entrypoint: 'functions/work.ts', access: 'system' });
  await env.broker.addFunction({
    name: 'inbound',
    entrypoint: 'functions/inbound.ts',
    access: 'system',
  });
  env.broker.jobs.worker.start();
}, 120_000);
afterAll(() => env?.cleanup());

const mail = (subject: string) => ({
  raw: new TextEncoder().encode(`From: ann@example.com\r\nSubject: ${subject}\r\n\r\nhi\r\n`),
  envelopeFrom: null,
  recipients: [`todo@${env.broker.inboundMail.addresses.domain}`],
});

const seen = async () =>
  (await env.broker.db.query<{ note: string }>('select note from seen order by id')).rows.map(
    (row) => row.note,
  );

describe('a paused app runs no jobs and no cron (spec 3.3)', { timeout: 60_000 }, () => {
  it('runs them while the owner is within the confirmation deadline', async () => {
    const { job } = await env.broker.jobs.service.enqueue('work', {
      payload: { n: 1 },
      idempotencyKey: 'one',
    });
    await waitFor(async () => (await env.broker.jobs.service.get(job.id)).state === 'succeeded');
    expect(await seen()).toEqual(['job 1']);
    // The first tick only records the schedule; an occurrence an hour later fires.
    await env.broker.jobs.scheduler.tick();
    clock.advance(HOUR);
    expect(await env.broker.jobs.scheduler.tick()).toHaveLength(1);
  });

  it('holds jobs without consuming attempts and skips cron while paused', async () => {
    clock.advance(DAY); // past the 24-hour deadline: the owner's account pauses
    expect(await env.broker.auth.appPaused()).toBe(true);
    const { job } = await env.broker.jobs.service.enqueue('work', {
      payload: { n: 2 },
      idempotencyKey: 'two',
    });
    expect(await env.broker.jobs.scheduler.tick()).toEqual([]);
    clock.advance(HOUR + MINUTE);
    expect(await env.broker.jobs.scheduler.tick()).toEqual([]);
    // Twenty polls of the worker later the job is still due and untouched.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await env.broker.jobs.service.get(job.id)).toMatchObject({
      state: 'queued',
      attempt: 0,
    });
    expect(await seen()).not.toContain('job 2');
    // Mail is deferred, not taken: the sender keeps it and retries.
    const deferred = await env.broker.inboundMail.receive(mail('while paused')).catch((e) => e);
    expect(deferred).toMatchObject({ code: 'ACCOUNT_VERIFICATION_REQUIRED' });
    expect(smtpReplyFor(deferred).responseCode).toBe(451);
    expect(await env.broker.inboundMail.list(10)).toEqual([]);
  });

  it('resumes on verification: the held job runs once, cron fires the latest missed run', async () => {
    // The held job, found while the app is still paused: once it resumes, the worker may finish
    // it before the next line runs.
    const held = (await env.broker.jobs.service.list({ limit: 10 })).jobs.find(
      (j) => j.queue === 'work' && j.state !== 'succeeded',
    );
    expect(held).toBeDefined();
    const owner = await env.broker.auth.owner();
    await confirmByEmail(env.broker, owner.email);
    expect(await env.broker.auth.appPaused()).toBe(false);
    await env.broker.inboundMail.receive(mail('after the resume'));
    await waitFor(
      async () => (await env.broker.jobs.service.get(held?.id ?? '')).state === 'succeeded',
    );
    expect(await env.broker.jobs.service.get(held?.id ?? '')).toMatchObject({ attempt: 1 });
    const fired = await env.broker.jobs.scheduler.tick();
    // 11:00 and 12:00 passed while paused: one run, for the latest (as after downtime).
    expect(fired.map((fire) => fire.scheduledAt)).toEqual(['2025-03-04T12:00:00.000Z']);
    await waitFor(async () => (await seen()).includes('2025-03-04T12:00:00.000Z'));
    // Each ran exactly once; their order is not promised (no FIFO across queues and cron).
    expect([...(await seen())].sort()).toEqual([
      '2025-03-03T11:00:00.000Z',
      '2025-03-04T12:00:00.000Z',
      'job 1',
      'job 2',
      'mail after the resume',
    ]);
  });
});
