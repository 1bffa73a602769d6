import { retriesJob } from '@platform/errors';
import { describe, expect, it } from 'vitest';
import { errors, PlatformError } from '../src/index.ts';
import { runJobAttempt } from '../src/testing/index.ts';
import consumer from './fixtures/failing-consumer.ts';

// The same cases as the broker's packages/broker/test/jobs/consumer-failures.test.ts, with the
// same consumer: the kit must tell what the broker does.
const attempt = async (kind: unknown) => {
  const run = await runJobAttempt(consumer, { input: { kind } });
  return run.outcome === 'succeeded'
    ? { outcome: run.outcome }
    : { outcome: run.outcome, code: run.error.code };
};

describe('runJobAttempt', () => {
  it('retries errors.unavailable and ends every other expected error at once', async () => {
    expect(await attempt('unavailable')).toEqual({ outcome: 'retry', code: 'PROVIDER_DOWN' });
    expect(await attempt('badRequest')).toEqual({ outcome: 'dead_lettered', code: 'BAD_PAYLOAD' });
    expect(await attempt('notFound')).toEqual({ outcome: 'dead_lettered', code: 'USER_GONE' });
    expect(await attempt('ownRetryable')).toEqual({ outcome: 'dead_lettered', code: 'BUSY' });
  });

  it('retries a crash', async () => {
    expect(await attempt('crash')).toEqual({ outcome: 'retry', code: 'FUNCTION_FAILED' });
  });

  it('retries a platform catalog code only where the catalog marks it retryable', async () => {
    expect(await attempt('platformCode')).toEqual({
      outcome: 'dead_lettered',
      code: 'PERMISSION_DENIED',
    });
    expect(await attempt('platformCall')).toEqual({
      outcome: 'dead_lettered',
      code: 'TABLE_NOT_FOUND',
    });
    expect(await attempt('retryablePlatformCode')).toEqual({
      outcome: 'retry',
      code: 'STORAGE_UNAVAILABLE',
    });
  });

  it('ends a job whose payload the consumer schema rejects', async () => {
    expect(await attempt(1)).toEqual({ outcome: 'dead_lettered', code: 'INVALID_INPUT' });
  });

  it('succeeds on a later attempt and returns the result', async () => {
    const run = await runJobAttempt(consumer, {
      input: { kind: 'crash' },
      job: { id: 'job_1', queue: 'work', attempt: 2 },
    });
    expect(run).toMatchObject({ outcome: 'succeeded', result: 'ok' });
  });
});

describe('retriesJob', () => {
  it('keeps to the rule for retryable and terminal platform codes', () => {
    expect(retriesJob(new PlatformError({ code: 'STORAGE_UNAVAILABLE', message: 'm' }))).toBe(true);
    expect(retriesJob(new PlatformError({ code: 'FUNCTION_TIMEOUT', message: 'm' }))).toBe(true);
    expect(retriesJob(new PlatformError({ code: 'FILE_INPUT_CHANGED', message: 'm' }))).toBe(false);
    expect(retriesJob(new PlatformError({ code: 'PERMISSION_DENIED', message: 'm' }))).toBe(false);
    expect(retriesJob(new PlatformError({ code: 'FUNCTION_FAILED', message: 'm' }))).toBe(true);
    expect(retriesJob(errors.conflict('ALREADY_SENT', 'm'))).toBe(false);
    expect(retriesJob('a string')).toBe(true);
  });
});
