// The owner API's job actions behind the console's Retry and Cancel: each works only from the
// states it names, and a cancelled job never runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';
import { queue } from './engine-helpers.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;
beforeAll(async () => {
  env = await brokerFor({}, { jobs: { queues: [queue('mail', 'send')], run: false } });
}, 60_000);
afterAll(async () => env?.cleanup());

const act = async (id: string, verb: 'retry' | 'cancel') => {
  const response = await env.broker.app.request(`/v1/apps/${env.broker.appId}/jobs/${id}/${verb}`, {
    method: 'POST',
  });
  return { status: response.status, body: (await response.json()) as Record<string, never> };
};

describe('job actions of the owner API', () => {
  it('cancels a queued job with JOB_CANCELLED, then runs it again on retry', async () => {
    const jobs = env.broker.jobs.service;
    const { job } = await jobs.enqueue('mail', { payload: { n: 1 }, idempotencyKey: 'a' });
    const cancelled = await act(job.id, 'cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job).toMatchObject({
      state: 'dead_lettered',
      lastError: { code: 'JOB_CANCELLED' },
    });
    // A dead-lettered job is not pending: cancelling it again is refused.
    const again = await act(job.id, 'cancel');
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { state: 'dead_lettered' },
    });
    const retried = await act(job.id, 'retry');
    expect(retried.body.job).toMatchObject({ state: 'queued', attempt: 0, lastError: null });
    expect((await jobs.get(job.id)).state).toBe('queued');
  });

  it('refuses to retry a job that is not dead-lettered, and answers JOB_NOT_FOUND for none', async () => {
    const { job } = await env.broker.jobs.service.enqueue('mail', {
      payload: {},
      idempotencyKey: 'b',
    });
    expect((await act(job.id, 'retry')).body.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect((await act('job_nothing', 'retry')).body.error).toMatchObject({ code: 'JOB_NOT_FOUND' });
  });
});
