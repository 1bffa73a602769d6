import { limits } from '@platform/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { engine, queue, waitFor } from './engine-helpers.ts';

let env: Awaited<ReturnType<typeof engine>>;
beforeEach(async () => {
  env = await engine();
});
afterEach(() => env.cleanup());

describe('the delegated file grant of an attempt', () => {
  it('travels with the call of each attempt, pinned at enqueue; other jobs carry none', async () => {
    await env.jobs.configure({ queues: [queue('q', 'f')], cron: [] });
    env.invoker.consumers.set('f', () => null);
    const file = await env.files.upload(userCaller('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'), {
      data: new TextEncoder().encode('hello'),
      name: 'a.txt',
      contentType: 'text/plain',
    });
    const granted = await env.jobs.enqueue('q', {
      payload: { n: 1 },
      idempotencyKey: 'with-files',
      files: { read: [file.ref] },
    });
    const plain = await env.jobs.enqueue('q', { payload: { n: 2 }, idempotencyKey: 'plain' });
    env.worker();
    await waitFor(() => env.invoker.calls.length === 2);
    const requestOf = (id: string) => env.invoker.calls.find((c) => c.request.job?.id === id);
    expect(requestOf(granted.job.id)?.request.fileGrant).toEqual({
      files: [{ id: file.ref, generation: 1 }],
      expiresAt: new Date(
        new Date('2025-01-15T12:00:00.000Z').getTime() + limits.fileGrant.expiresSeconds * 1000,
      ),
    });
    expect(requestOf(plain.job.id)?.request).not.toHaveProperty('fileGrant');
  });
});
