import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';
import { queue, waitFor } from './engine-helpers.ts';

// What each kind of consumer failure does to a job, with a real consumer in Deno
// (docs/jobs.md, "Which failures retry"). Every case fails on attempt 1 and succeeds on
// attempt 2, so a retried job ends `succeeded` at attempt 2 and a terminal one `dead_lettered`
// at attempt 1 with the failure as its latest error. The consumer is the one the test kit's
// test runs (packages/server/test/job-attempt.test.ts).
const consumerFixture = new URL(
  '../../../server/test/fixtures/failing-consumer.ts',
  import.meta.url,
).pathname;

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(
    {
      'functions/consume.ts': readFileSync(consumerFixture, 'utf8'),
    },
    {
      jobs: {
        queues: [
          queue('work', 'consume', { maxAttempts: 2, retryDelaySeconds: 1, concurrency: 6 }),
        ],
        cron: [],
        pollMs: 50,
      },
    },
  );
  await env.broker.addFunction({
    name: 'consume',
    entrypoint: 'functions/consume.ts',
    access: 'system',
  });
});
afterAll(() => env?.cleanup());

const outcome = async (kind: string) => {
  const { job } = await env.broker.jobs.service.enqueue('work', {
    payload: { kind },
    idempotencyKey: kind,
  });
  const done = await waitFor(async () => {
    const now = await env.broker.jobs.service.get(job.id);
    return now.state === 'succeeded' || now.state === 'dead_lettered' ? now : undefined;
  });
  return { state: done.state, attempt: done.attempt, code: done.lastError?.code ?? null };
};

describe('a failed consumer attempt', () => {
  it('retries errors.unavailable and ends every other expected error at once', async () => {
    const [unavailable, badRequest, notFound, ownRetryable] = await Promise.all(
      ['unavailable', 'badRequest', 'notFound', 'ownRetryable'].map(outcome),
    );
    expect(unavailable).toEqual({ state: 'succeeded', attempt: 2, code: 'PROVIDER_DOWN' });
    expect(badRequest).toEqual({ state: 'dead_lettered', attempt: 1, code: 'BAD_PAYLOAD' });
    expect(notFound).toEqual({ state: 'dead_lettered', attempt: 1, code: 'USER_GONE' });
    // Retryable, but not errors.unavailable: an expected error of the Function, so terminal.
    expect(ownRetryable).toEqual({ state: 'dead_lettered', attempt: 1, code: 'BUSY' });
  });

  it('retries a crash', async () => {
    expect(await outcome('crash')).toEqual({
      state: 'succeeded',
      attempt: 2,
      code: 'FUNCTION_FAILED',
    });
  });

  it('retries a platform catalog code only where the catalog marks it retryable', async () => {
    const [thrown, platformCall, retryable] = await Promise.all(
      ['platformCode', 'platformCall', 'retryablePlatformCode'].map(outcome),
    );
    expect(thrown).toEqual({ state: 'dead_lettered', attempt: 1, code: 'PERMISSION_DENIED' });
    expect(platformCall).toEqual({ state: 'dead_lettered', attempt: 1, code: 'TABLE_NOT_FOUND' });
    expect(retryable).toEqual({ state: 'succeeded', attempt: 2, code: 'STORAGE_UNAVAILABLE' });
  });

  it('ends a job whose payload the consumer schema rejects', async () => {
    const { job } = await env.broker.jobs.service.enqueue('work', {
      payload: { kind: 1 },
      idempotencyKey: 'bad-input',
    });
    const done = await waitFor(async () => {
      const now = await env.broker.jobs.service.get(job.id);
      return now.state === 'dead_lettered' ? now : undefined;
    });
    expect(done).toMatchObject({ attempt: 1, lastError: { code: 'INVALID_INPUT' } });
  });
});
