// The Agent Feed (spec 4.5): the job signals, failure events and the built-in failure alert an
// agent reads, driven by the real job worker on a manual clock. Then the same feed through its
// REST route and its MCP resource twin, which must agree.

import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { errors } from '@platform/errors';
import { limits } from '@platform/schema';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AgentFeed, readAgentFeed } from '../../src/jobs/feed/agent-feed.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { agentServer } from '../../src/mcp/agent-server.ts';
import { brokerFor } from '../helpers/broker.ts';
import { engine, queue, waitFor } from './engine-helpers.ts';

describe('the Agent Feed of the job engine', () => {
  let env: Awaited<ReturnType<typeof engine>>;
  beforeEach(async () => {
    env = await engine();
  });
  afterEach(() => env.cleanup());

  const feed = (since?: Date) => readAgentFeed(env.db, env.jobs.scope, env.clock.now(), since);
  const settled = (id: string, state: string, attempt = 1) =>
    waitFor(async () => {
      const job = await env.jobs.get(id);
      return job.state === state && job.attempt >= attempt ? job : undefined;
    });

  it('counts created, retried, succeeded, failed and active jobs, and fires the failure alert', async () => {
    await env.jobs.configure({
      queues: [
        queue('emails', 'send', { maxAttempts: 1 }),
        queue('reports', 'build', { maxAttempts: 2, retryDelaySeconds: 60 }),
      ],
      cron: [],
    });
    env.invoker.consumers.set('send', (request) => {
      if ((request.input as { fail?: boolean }).fail) throw errors.badRequest('BAD_ADDRESS', 'no');
      return 'sent';
    });
    env.invoker.consumers.set('build', () => {
      throw errors.unavailable('UPSTREAM_DOWN', 'try later');
    });
    const quiet = await feed();
    expect(quiet.signals).toEqual({
      'jobs.created': 0,
      'jobs.retried': 0,
      'jobs.succeeded': 0,
      'jobs.failed': 0,
      'jobs.active': 0,
    });
    expect(quiet.alerts).toEqual([
      expect.objectContaining({ name: 'jobs.failure', state: 'ok', failedJobs: 0, since: null }),
    ]);

    env.worker();
    const ok = await env.jobs.enqueue('emails', {
      payload: { secret: 's3cr3t' },
      idempotencyKey: 'k-ok',
    });
    const bad = await env.jobs.enqueue('emails', {
      payload: { fail: true },
      idempotencyKey: 'k-bad',
    });
    const flaky = await env.jobs.enqueue('reports', { payload: {}, idempotencyKey: 'k-flaky' });
    await settled(ok.job.id, 'succeeded');
    await settled(bad.job.id, 'dead_lettered');
    await settled(flaky.job.id, 'retry_wait');

    const now = await feed();
    expect(now.signals).toEqual({
      'jobs.created': 3,
      'jobs.retried': 1,
      'jobs.succeeded': 1,
      'jobs.failed': 1,
      'jobs.active': 1,
    });
    expect(now.failures.map((f) => [f.jobId, f.state, f.error.code])).toEqual(
      expect.arrayContaining([
        [bad.job.id, 'dead_lettered', 'BAD_ADDRESS'],
        [flaky.job.id, 'retry_wait', 'UPSTREAM_DOWN'],
      ]),
    );
    expect(now.failures).toHaveLength(2);
    expect(now.alerts[0]).toMatchObject({
      state: 'firing',
      failedJobs: 1,
      queues: ['emails'],
      since: '2025-01-15T12:00:00.000Z',
    });
    expect(now.alerts[0]?.message).toContain('1 background job failed for good');
    // Never the payload or the idempotency key.
    expect(JSON.stringify(now)).not.toMatch(/s3cr3t|k-ok|k-bad/);

    // The alert clears once its window has passed without another failure for good; the
    // retried job's second failure, after its delay, is a new failure event.
    env.clock.advance(limits.jobs.failureAlertSeconds * 1000 + 1000);
    await settled(flaky.job.id, 'dead_lettered', 2);
    const later = await feed(new Date(env.clock.now().getTime() - 60_000));
    expect(later.signals['jobs.failed']).toBe(1);
    expect(later.signals['jobs.created']).toBe(0);
    expect(later.failures.map((f) => f.jobId)).toEqual([flaky.job.id]);
    expect(later.alerts[0]).toMatchObject({ state: 'firing', queues: ['reports'] });
    env.clock.advance(limits.jobs.failureAlertSeconds * 1000 + 1000);
    expect((await feed()).alerts[0]).toMatchObject({ state: 'ok', failedJobs: 0, queues: [] });
  });
});

type FeedAnswer = AgentFeed & { error: { code: string; details?: unknown } };

describe('the Agent Feed over REST and MCP', () => {
  let env: Awaited<ReturnType<typeof brokerFor>>;
  const clock = new ManualClock('2025-01-15T12:00:00.000Z');
  beforeAll(async () => {
    env = await brokerFor(
      {},
      { jobs: { queues: [queue('emails', 'send')], cron: [], clock, run: false } },
    );
    await env.broker.jobs.service.enqueue('emails', { payload: {}, idempotencyKey: 'k' });
  }, 120_000);
  afterAll(() => env?.cleanup());

  const get = async (query = '') => {
    const response = await env.broker.app.request(`/v1/apps/${env.broker.appId}/feed${query}`);
    return { status: response.status, body: (await response.json()) as FeedAnswer };
  };

  it('answers the feed, and refuses a since that is not a time or is later than now', async () => {
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body.window).toEqual({
      from: '2025-01-15T11:00:00.000Z',
      to: '2025-01-15T12:00:00.000Z',
    });
    expect(body.signals['jobs.created']).toBe(1);
    expect(body.signals['jobs.active']).toBe(1);
    expect((await get('?since=yesterday')).body.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { field: 'since' },
    });
    expect((await get('?since=2025-01-15T12:00:01Z')).body.error.code).toBe('INVALID_INPUT');
  });

  it('is an MCP resource whose content is what its REST twin answers', async () => {
    const server = agentServer('focused', async (twin) =>
      twin.appId === env.broker.appId
        ? env.broker.app.request(twin.path, { method: twin.method })
        : Response.json(
            { error: { code: 'APP_NOT_FOUND', message: 'no such app' } },
            { status: 404 },
          ),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'feed-agent', version: '1.0.0' });
    await client.connect(clientSide);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'platform://apps/{appId}/feed',
    ]);
    const read = await client.readResource({ uri: `platform://apps/${env.broker.appId}/feed` });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe('application/json');
    expect(JSON.parse(content.text)).toEqual((await get()).body);
    await expect(client.readResource({ uri: 'platform://apps/nope/feed' })).rejects.toThrow(
      /no such app/,
    );
    await client.close();
  });
});
