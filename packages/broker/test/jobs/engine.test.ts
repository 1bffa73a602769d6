import { errors, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimJobs, recoverExpiredLeases } from '../../src/jobs/job-claims.ts';
import { retryDelaySeconds } from '../../src/jobs/job-policy.ts';
import { sweepTerminal } from '../../src/jobs/job-store.ts';
import { engine, queue, waitFor } from './engine-helpers.ts';

let env: Awaited<ReturnType<typeof engine>>;
beforeEach(async () => {
  env = await engine();
});
afterEach(() => env.cleanup());

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof PlatformError ? error.code : String(error)),
  );

describe('enqueue and get', () => {
  it('creates a queued job with safe metadata and reads it back', async () => {
    await env.jobs.configure({ queues: [queue('emails', 'sendEmail')], cron: [] });
    const { job, created } = await env.jobs.enqueue('emails', {
      payload: { to: 'a@b.c' },
      idempotencyKey: 'k1',
    });
    expect(created).toBe(true);
    expect(job).toEqual({
      id: expect.stringMatching(/^job_[0-9a-f]{32}$/),
      queue: 'emails',
      state: 'queued',
      attempt: 0,
      maxAttempts: 3,
      createdAt: '2025-01-15T12:00:00.000Z',
      updatedAt: '2025-01-15T12:00:00.000Z',
      runAt: '2025-01-15T12:00:00.000Z',
      finishedAt: null,
      lastError: null,
    });
    expect(await env.jobs.get(job.id)).toEqual(job);
    expect(JSON.stringify(job)).not.toContain('a@b.c');
    expect(await code(env.jobs.get('job_00000000000000000000000000000000'))).toBe('JOB_NOT_FOUND');
    expect(await code(env.jobs.enqueue('nope', { payload: {}, idempotencyKey: 'k' }))).toBe(
      'QUEUE_NOT_DECLARED',
    );
  });

  it('returns the original job for the same key and payload, refuses a different payload', async () => {
    await env.jobs.configure({ queues: [queue('a', 'f'), queue('b', 'f')], cron: [] });
    const first = await env.jobs.enqueue('a', {
      payload: { x: 1, y: [1, 2] },
      idempotencyKey: 'same',
    });
    const again = await env.jobs.enqueue('a', {
      payload: { y: [1, 2], x: 1 },
      idempotencyKey: 'same',
    });
    expect(again).toEqual({ job: first.job, created: false });
    expect(await code(env.jobs.enqueue('a', { payload: { x: 2 }, idempotencyKey: 'same' }))).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    // The scope of a key is the queue: another queue gets its own job.
    const other = await env.jobs.enqueue('b', {
      payload: { x: 1, y: [1, 2] },
      idempotencyKey: 'same',
    });
    expect(other.created).toBe(true);
  });

  it('creates one job for 100 concurrent enqueues with the same key', async () => {
    await env.jobs.configure({ queues: [queue('a', 'f')], cron: [] });
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        env.jobs.enqueue('a', { payload: { n: 1 }, idempotencyKey: 'burst' }),
      ),
    );
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const { rows } = await env.db.query<{ n: number }>(
      'select count(*)::int as n from platform.jobs',
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('enforces the payload, delay and active-jobs limits', async () => {
    await env.jobs.configure({ queues: [queue('a', 'f')], cron: [] });
    const big = { text: 'x'.repeat(limits.jobs.payloadMaxBytes) };
    expect(await code(env.jobs.enqueue('a', { payload: big, idempotencyKey: 'big' }))).toBe(
      'LIMIT_EXCEEDED',
    );
    const tooLate = limits.jobs.delayMaxSeconds + 1;
    expect(
      await code(
        env.jobs.enqueue('a', { payload: {}, idempotencyKey: 'd', delaySeconds: tooLate }),
      ),
    ).toBe('LIMIT_EXCEEDED');
    const delayed = await env.jobs.enqueue('a', {
      payload: {},
      idempotencyKey: 'd',
      delaySeconds: limits.jobs.delayMaxSeconds,
    });
    expect(delayed.job.runAt).toBe('2025-01-22T12:00:00.000Z');
    // Fill the namespace up to the limit directly in SQL, then one more enqueue is refused.
    await env.db.query(
      `insert into platform.jobs (id, kind, app_id, environment, namespace, queue, state, payload, payload_hash,
         idempotency_key, max_attempts, concurrency, retry_delay_seconds, retry_backoff, timeout_seconds, run_at, created_at, updated_at)
       select 'job_fill_' || g, 'job', 'local', 'development', 'default', 'a', 'queued', '{}', 'h', 'fill' || g, 1, 1, 1, false, 1, now(), now(), now()
       from generate_series(1, $1::int) g`,
      [limits.jobs.activeMaxPerNamespace - 1],
    );
    expect(await code(env.jobs.enqueue('a', { payload: {}, idempotencyKey: 'one-more' }))).toBe(
      'ACTIVE_JOBS_LIMIT',
    );
    // A repeated key still answers with its original job at the limit.
    expect((await env.jobs.enqueue('a', { payload: {}, idempotencyKey: 'd' })).job.id).toBe(
      delayed.job.id,
    );
  });
});

describe('running jobs', () => {
  it('runs a job as the system with ctx.job and marks it succeeded', async () => {
    await env.jobs.configure({ queues: [queue('emails', 'sendEmail')], cron: [] });
    env.invoker.consumers.set('sendEmail', () => 'sent');
    env.worker();
    const { job } = await env.jobs.enqueue('emails', {
      payload: { to: 'a@b.c' },
      idempotencyKey: 'k',
    });
    const done = await waitFor(async () => {
      const j = await env.jobs.get(job.id);
      return j.state === 'succeeded' ? j : undefined;
    });
    expect(done).toMatchObject({
      attempt: 1,
      runAt: null,
      finishedAt: '2025-01-15T12:00:00.000Z',
      lastError: null,
    });
    expect(env.invoker.calls).toHaveLength(1);
    const { request } = env.invoker.calls[0]!;
    expect(request).toMatchObject({
      input: { to: 'a@b.c' },
      caller: { kind: 'system' },
      origin: 'platform',
      job: { id: job.id, queue: 'emails', attempt: 1 },
      timeoutMs: 60_000,
    });
  });

  it('retries errors.unavailable with the pinned delay and backoff, then dead-letters', async () => {
    await env.jobs.configure({
      queues: [queue('q', 'f', { maxAttempts: 3, retryDelaySeconds: 10, retryBackoff: true })],
      cron: [],
    });
    env.invoker.consumers.set('f', () => {
      throw errors.unavailable('UPSTREAM_DOWN', 'try later');
    });
    env.worker();
    const { job } = await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' });
    const state = async (want: string) =>
      waitFor(async () => {
        const j = await env.jobs.get(job.id);
        return j.state === want ? j : undefined;
      });
    const first = await state('retry_wait');
    expect(first).toMatchObject({
      attempt: 1,
      runAt: '2025-01-15T12:00:10.000Z',
      lastError: { code: 'UPSTREAM_DOWN' },
    });
    env.clock.advance(10_000);
    const second = await waitFor(async () => {
      const j = await env.jobs.get(job.id);
      return j.attempt === 2 && j.state === 'retry_wait' ? j : undefined;
    });
    // Backoff doubles the wait between later attempts.
    expect(second?.runAt).toBe('2025-01-15T12:00:30.000Z');
    env.clock.advance(20_000);
    const dead = await state('dead_lettered');
    expect(dead).toMatchObject({
      attempt: 3,
      runAt: null,
      lastError: { code: 'UPSTREAM_DOWN', message: 'try later' },
    });
    expect(env.invoker.calls.map((c) => c.request.job?.attempt)).toEqual([1, 2, 3]);
  });

  it('treats other expected errors as terminal and crashes and timeouts as retryable', async () => {
    await env.jobs.configure({
      queues: [queue('q', 'f', { maxAttempts: 2, retryDelaySeconds: 1 })],
      cron: [],
    });
    const behaviour: Record<string, () => never> = {
      expected: () => {
        throw errors.notFound('TODO_GONE', 'gone');
      },
      crash: () => {
        throw new PlatformError({ code: 'FUNCTION_FAILED', message: 'boom' });
      },
      timeout: () => {
        throw new PlatformError({ code: 'FUNCTION_TIMEOUT', message: 'too slow' });
      },
      invalid: () => {
        throw new PlatformError({ code: 'INVALID_INPUT', message: 'schema rejects the payload' });
      },
    };
    env.invoker.consumers.set('f', (request) =>
      behaviour[(request.input as { mode: string }).mode]!(),
    );
    env.worker();
    const ids: Record<string, string> = {};
    for (const mode of Object.keys(behaviour)) {
      ids[mode] = (await env.jobs.enqueue('q', { payload: { mode }, idempotencyKey: mode })).job.id;
    }
    await waitFor(async () => (await env.jobs.get(ids.expected!)).state === 'dead_lettered');
    await waitFor(async () => (await env.jobs.get(ids.invalid!)).state === 'dead_lettered');
    await waitFor(async () => (await env.jobs.get(ids.crash!)).state === 'retry_wait');
    await waitFor(async () => (await env.jobs.get(ids.timeout!)).state === 'retry_wait');
    expect(await env.jobs.get(ids.expected!)).toMatchObject({
      attempt: 1,
      lastError: { code: 'TODO_GONE' },
    });
    expect(await env.jobs.get(ids.invalid!)).toMatchObject({
      attempt: 1,
      lastError: { code: 'INVALID_INPUT' },
    });
    env.clock.advance(1000);
    for (const mode of ['crash', 'timeout']) {
      const dead = await waitFor(async () => {
        const j = await env.jobs.get(ids[mode]!);
        return j.state === 'dead_lettered' ? j : undefined;
      });
      expect(dead?.attempt).toBe(2);
    }
    expect((await env.jobs.get(ids.timeout!)).lastError?.code).toBe('FUNCTION_TIMEOUT');
  });

  it('bounds the stored error message', async () => {
    await env.jobs.configure({ queues: [queue('q', 'f', { maxAttempts: 1 })], cron: [] });
    env.invoker.consumers.set('f', () => {
      throw errors.badRequest('TOO_MUCH', 'y'.repeat(10_000));
    });
    env.worker();
    const { job } = await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' });
    const dead = await waitFor(async () => {
      const j = await env.jobs.get(job.id);
      return j.state === 'dead_lettered' ? j : undefined;
    });
    expect(dead?.lastError?.message.length).toBe(limits.jobs.errorMaxLength);
  });

  it('pins the policy at enqueue and resolves the consumer at dispatch', async () => {
    await env.jobs.configure({ queues: [queue('q', 'old', { maxAttempts: 1 })], cron: [] });
    const { job } = await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' });
    await env.jobs.configure({ queues: [queue('q', 'new', { maxAttempts: 9 })], cron: [] });
    env.invoker.consumers.set('old', () => 'old');
    env.invoker.consumers.set('new', () => {
      throw errors.unavailable('LATER', 'later');
    });
    env.worker();
    const dead = await waitFor(async () => {
      const j = await env.jobs.get(job.id);
      return j.state === 'dead_lettered' ? j : undefined;
    });
    expect(dead).toMatchObject({ attempt: 1, maxAttempts: 1 });
    expect(env.invoker.calls.map((c) => c.name)).toEqual(['new']);
  });

  it('never runs more jobs of a queue at once than its concurrency', async () => {
    await env.jobs.configure({ queues: [queue('q', 'f', { concurrency: 3 })], cron: [] });
    let inFlight = 0;
    let max = 0;
    env.invoker.consumers.set('f', async () => {
      inFlight++;
      max = Math.max(max, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
    });
    env.worker();
    env.worker();
    const ids = await Promise.all(
      Array.from(
        { length: 24 },
        async (_, i) =>
          (await env.jobs.enqueue('q', { payload: { i }, idempotencyKey: `k${i}` })).job.id,
      ),
    );
    await waitFor(async () => {
      const { rows } = await env.db.query<{ n: number }>(
        `select count(*)::int as n from platform.jobs where state = 'succeeded'`,
      );
      return rows[0]?.n === ids.length;
    });
    expect(max).toBe(3);
  });

  it('dead-letters pending jobs of a removed queue with QUEUE_NOT_ACTIVE and never redrives them', async () => {
    await env.jobs.configure({ queues: [queue('q', 'f'), queue('keep', 'f')], cron: [] });
    const { job } = await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' });
    const kept = await env.jobs.enqueue('keep', { payload: {}, idempotencyKey: 'k' });
    const { deadLettered } = await env.jobs.configure({ queues: [queue('keep', 'f')], cron: [] });
    expect(deadLettered).toEqual([job.id]);
    expect(await env.jobs.get(job.id)).toMatchObject({
      state: 'dead_lettered',
      lastError: { code: 'QUEUE_NOT_ACTIVE' },
    });
    expect((await env.jobs.get(kept.job.id)).state).toBe('queued');
    await env.jobs.configure({ queues: [queue('q', 'f'), queue('keep', 'f')], cron: [] });
    expect((await env.jobs.get(job.id)).state).toBe('dead_lettered');
  });
});

describe('leases, retention, policy arithmetic', () => {
  it('recovers the attempt of a broker that died, counting it', async () => {
    await env.jobs.configure({
      queues: [queue('q', 'f', { maxAttempts: 2, retryDelaySeconds: 5 })],
      cron: [],
    });
    const { job } = await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' });
    env.clock.advance(1);
    const other = await env.jobs.enqueue('q', { payload: { n: 2 }, idempotencyKey: 'k2' });
    const now = env.clock.now();
    // A "dead" broker claims the job and never reports back.
    const claimed = await claimJobs(
      env.db,
      env.jobs.scope,
      { kind: 'job', queue: 'q' },
      { max: 1, owner: 'ghost', leaseSeconds: 30, now },
    );
    expect(claimed.map((r) => r.id)).toEqual([job.id]);
    // Concurrency 1: while the ghost holds its lease nothing else of the queue runs.
    expect(
      await claimJobs(
        env.db,
        env.jobs.scope,
        { kind: 'job', queue: 'q' },
        { max: 5, owner: 'x', leaseSeconds: 30, now },
      ),
    ).toEqual([]);
    expect(await recoverExpiredLeases(env.db, env.clock.now())).toEqual([]);
    env.clock.advance(31_000);
    expect(await recoverExpiredLeases(env.db, env.clock.now())).toEqual([job.id]);
    expect(await env.jobs.get(job.id)).toMatchObject({
      state: 'retry_wait',
      attempt: 1,
      lastError: { code: 'JOB_ATTEMPT_LOST' },
    });
    env.invoker.consumers.set('f', () => 'ok');
    env.worker();
    await waitFor(async () => (await env.jobs.get(other.job.id)).state === 'succeeded');
    env.clock.advance(5_000);
    const done = await waitFor(async () => {
      const j = await env.jobs.get(job.id);
      return j.state === 'succeeded' ? j : undefined;
    });
    expect(done?.attempt).toBe(2);
  });

  it('dead-letters a lost last attempt', async () => {
    await env.jobs.configure({ queues: [queue('q', 'f', { maxAttempts: 1 })], cron: [] });
    const { job } = await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' });
    await claimJobs(
      env.db,
      env.jobs.scope,
      { kind: 'job', queue: 'q' },
      { max: 1, owner: 'ghost', leaseSeconds: 1, now: env.clock.now() },
    );
    env.clock.advance(2000);
    await recoverExpiredLeases(env.db, env.clock.now());
    expect(await env.jobs.get(job.id)).toMatchObject({
      state: 'dead_lettered',
      attempt: 1,
      lastError: { code: 'JOB_ATTEMPT_LOST' },
    });
  });

  it('keeps terminal records 14 days, then the key is free again', async () => {
    await env.jobs.configure({ queues: [queue('q', 'f', { maxAttempts: 1 })], cron: [] });
    env.invoker.consumers.set('f', () => 'ok');
    const worker = env.worker();
    const { job } = await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' });
    await waitFor(async () => (await env.jobs.get(job.id)).state === 'succeeded');
    await worker.stop();
    env.clock.advance(limits.jobs.terminalRetentionSeconds * 1000);
    expect(await sweepTerminal(env.db, env.clock.now())).toBe(0);
    env.clock.advance(1000);
    expect(await sweepTerminal(env.db, env.clock.now())).toBe(1);
    expect(await code(env.jobs.get(job.id))).toBe('JOB_NOT_FOUND');
    expect((await env.jobs.enqueue('q', { payload: {}, idempotencyKey: 'k' })).created).toBe(true);
  });

  it('computes retry delays with and without backoff, capped at a day', () => {
    expect(
      [1, 2, 3, 4].map((a) => retryDelaySeconds({ retryDelaySeconds: 30, retryBackoff: true }, a)),
    ).toEqual([30, 60, 120, 240]);
    expect(
      [1, 2, 3].map((a) => retryDelaySeconds({ retryDelaySeconds: 30, retryBackoff: false }, a)),
    ).toEqual([30, 30, 30]);
    expect(retryDelaySeconds({ retryDelaySeconds: 3600, retryBackoff: true }, 20)).toBe(
      limits.queues.retryDelaySeconds.max,
    );
  });
});
