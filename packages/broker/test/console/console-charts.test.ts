// The console's charts count from the rows the broker already keeps, per minute of the last
// hour: the jobs created in each minute by the state each is in now, the AI calls, and the
// integration calls an app made or served, ok and failed. Only counts reach the answers: never
// a payload, prompt, input or output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AiCallRecord, AiCalls } from '../../src/ai/ai-calls.ts';
import type { Database } from '../../src/db/database.ts';
import {
  IntegrationAudit,
  type IntegrationCallRecord,
} from '../../src/integrations/integration-audit.ts';
import { systemCaller } from '../../src/kernel/caller.ts';
import { CHART_MINUTES, perMinute } from '../../src/pages/dashboard/per-minute.ts';
import { brokerFor } from '../helpers/broker.ts';
import { openTestCentral } from '../helpers/db.ts';
import { queue } from '../jobs/engine-helpers.ts';

const PAYLOAD = 'planted-chart-payload-4417';
const PROMPT = 'planted-chart-prompt-8830';

/** A series of the hour with `counts` (minutes ago → count) and zero elsewhere. */
const hour = (counts: Record<number, number> = {}): number[] => {
  const slots = new Array<number>(CHART_MINUTES).fill(0);
  for (const [ago, n] of Object.entries(counts)) slots[CHART_MINUTES - 1 - Number(ago)] = n;
  return slots;
};

describe('the per-minute series', () => {
  it('places each count in its minute before the end, and leaves out other series and other hours', () => {
    const until = new Date('2026-03-01T12:00:00.000Z');
    const chart = perMinute(
      until,
      ['ok', 'failed'],
      [
        { ago: 0, series: 'ok', count: 2 },
        { ago: 0, series: 'ok', count: 1 },
        { ago: 59, series: 'failed', count: 4 },
        { ago: 60, series: 'ok', count: 9 },
        { ago: -1, series: 'ok', count: 9 },
        { ago: 3, series: 'other', count: 9 },
      ],
    );
    expect(chart).toEqual({
      until: until.toISOString(),
      perMinute: { ok: hour({ 0: 3 }), failed: hour({ 59: 4 }) },
    });
  });

  it('counts the kept AI calls of each minute, an error or a cancellation as failed', () => {
    const until = new Date('2026-03-01T12:00:00.000Z');
    const calls = new AiCalls();
    const at = (secondsAgo: number) => new Date(until.getTime() - secondsAgo * 1000).toISOString();
    const record = (secondsAgo: number, outcome: string): AiCallRecord => ({
      at: at(secondsAgo),
      functionName: 'suggest',
      requestId: 'req',
      kind: 'generateText',
      durationMs: 5,
      outcome,
    });
    for (const r of [
      record(10, 'ok'),
      record(59, 'ok'),
      record(61, 'AI_PROVIDER_UNAVAILABLE'),
      record(30 * 60 + 5, 'cancelled'),
      record(30 * 60 + 6, 'ok'),
      record(60 * 60 + 1, 'ok'),
    ]) {
      calls.add(r);
    }
    expect(calls.perMinute(until).perMinute).toEqual({
      ok: hour({ 0: 2, 30: 1 }),
      failed: hour({ 1: 1, 30: 1 }),
    });
  });
});

describe('the integration calls per minute', () => {
  let central: Database;
  beforeAll(async () => {
    central = await openTestCentral();
  }, 60_000);
  afterAll(async () => central?.close());

  it('counts in SQL the calls the app made or served, ok and failed, within the hour', async () => {
    const audit = new IntegrationAudit(central);
    const until = new Date('2026-03-01T12:00:00.000Z');
    const call = (
      secondsAgo: number,
      result: string,
      apps: { consumer: string; provider: string | null } = { consumer: 'sales', provider: 'crm' },
    ): IntegrationCallRecord => ({
      at: new Date(until.getTime() - secondsAgo * 1000).toISOString(),
      integration: 'crm',
      providerAppId: apps.provider,
      consumerAppId: apps.consumer,
      slot: 'crm',
      connectionId: null,
      operation: 'contacts.findByEmail',
      environment: 'development',
      mode: 'fake',
      result,
      durationMs: 3,
    });
    await Promise.all([
      audit.record(call(5, 'ok')),
      audit.record(call(50, 'ok')),
      audit.record(call(65, 'INTEGRATION_NOT_BOUND')),
      audit.record(call(10 * 60 + 1, 'ok')),
      audit.record(
        call(10 * 60 + 2, 'INTEGRATION_SLOT_NOT_DECLARED', { consumer: 'sales', provider: null }),
      ),
      // Served, not made: crm's provider Function answered billing.
      audit.record(call(20 * 60, 'ok', { consumer: 'billing', provider: 'sales' })),
      // Neither made nor served by sales, and an hour old: not counted.
      audit.record(call(30, 'ok', { consumer: 'billing', provider: 'crm' })),
      audit.record(call(60 * 60, 'ok')),
      audit.record(call(-5, 'ok')),
    ]);
    expect(await audit.perMinute('sales', until)).toEqual({
      until: until.toISOString(),
      perMinute: { ok: hour({ 0: 2, 10: 1, 20: 1 }), failed: hour({ 1: 1, 10: 1 }) },
    });
    expect((await audit.perMinute('nobody', until)).perMinute).toEqual({
      ok: hour(),
      failed: hour(),
    });
  });
});

describe('the console’s chart routes on a broker', () => {
  let env: Awaited<ReturnType<typeof brokerFor>>;
  beforeAll(async () => {
    env = await brokerFor({}, { jobs: { queues: [queue('mail', 'send')], run: false } });
  }, 60_000);
  afterAll(async () => env?.cleanup());

  const read = async (path: string) => {
    const response = await env.broker.app.request(`/v1/apps/${env.broker.appId}${path}`);
    expect(response.status, path).toBe(200);
    return { text: await response.clone().text(), body: (await response.json()) as never };
  };

  it('answers the jobs created in each minute of the hour by the state each is in now', async () => {
    const jobs = env.broker.jobs.service;
    const made: Record<string, string> = {};
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'old', 'cron']) {
      made[key] = (
        await jobs.enqueue('mail', { payload: { note: PAYLOAD }, idempotencyKey: key })
      ).job.id;
    }
    // Cancelled from the owner API, as the console's Cancel does: dead-lettered now.
    const cancel = await env.broker.app.request(
      `/v1/apps/${env.broker.appId}/jobs/${made.b}/cancel`,
      { method: 'POST' },
    );
    expect(cancel.status).toBe(200);
    // The worker does not run here: the other states and the creation minutes are set on the
    // rows, half a minute into each minute so the answer's own instant keeps them there.
    const set = (id: string | undefined, state: string, minutesAgo: number) =>
      env.broker.db.query(
        `UPDATE platform.jobs SET state = $2, created_at = now() - make_interval(secs => $3)
          WHERE id = $1`,
        [id, state, minutesAgo * 60 + 30],
      );
    await set(made.a, 'succeeded', 2);
    await set(made.b, 'dead_lettered', 2);
    await set(made.c, 'succeeded', 2);
    await set(made.d, 'running', 15);
    await set(made.e, 'retry_wait', 40);
    await set(made.f, 'queued', 40);
    await set(made.g, 'succeeded', 59);
    await set(made.old, 'succeeded', 61);
    // A cron run is not a job, and is not counted.
    await set(made.cron, 'succeeded', 5);
    await env.broker.db.query(`UPDATE platform.jobs SET kind = 'cron' WHERE id = $1`, [made.cron]);
    const { text, body } = await read('/jobs/per-minute');
    expect((body as { perMinute: unknown }).perMinute).toEqual({
      queued: hour({ 40: 1 }),
      running: hour({ 15: 1 }),
      retry_wait: hour({ 40: 1 }),
      succeeded: hour({ 2: 2, 59: 1 }),
      dead_lettered: hour({ 2: 1 }),
    });
    expect(text).not.toContain(PAYLOAD);
  });

  it('answers the AI calls of each minute, ok and failed, with no prompt', async () => {
    const grant = {
      requestId: 'req_chart',
      functionName: 'suggest',
      caller: systemCaller(),
      sdkVersion: '2.6.0',
      secrets: [],
      emailAliases: [],
    };
    await env.broker.ai.generateText({ prompt: PROMPT }, { grant });
    await env.broker.ai.generateText({ prompt: PROMPT }, { grant });
    // An attachment that is no file fails the call with FILE_NOT_FOUND.
    await expect(
      env.broker.ai.generateText(
        { prompt: PROMPT, attachments: [{ type: 'file', file: 'file_missing' }] },
        { grant },
      ),
    ).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    const { text, body } = await read('/ai/calls/per-minute');
    expect((body as { perMinute: unknown }).perMinute).toEqual({
      ok: hour({ 0: 2 }),
      failed: hour({ 0: 1 }),
    });
    expect(text).not.toContain(PROMPT);
  });
});
