import type { CronDeclaration } from '@platform/schema/manifest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CronScheduler } from '../../src/jobs/cron/cron-scheduler.ts';
import { engine, waitFor } from '../jobs/engine-helpers.ts';

const cron = (
  name: string,
  schedule: string,
  extra: Partial<CronDeclaration> = {},
): CronDeclaration => ({
  name,
  schedule,
  function: 'tick',
  enabled: true,
  timezone: 'UTC',
  ...extra,
});

let env: Awaited<ReturnType<typeof engine>>;
let scheduler: CronScheduler;
beforeEach(async () => {
  env = await engine('2025-01-15T11:58:30.000Z');
  scheduler = new CronScheduler({ jobs: env.jobs });
});
afterEach(() => env.cleanup());

const runs = async () =>
  (
    await env.db.query<{ payload: { scheduledAt: string }; state: string }>(
      `select payload, state from platform.jobs where kind = 'cron' order by created_at, payload->>'scheduledAt'`,
    )
  ).rows;
const scheduled = async () => (await runs()).map((r) => r.payload.scheduledAt);
const minutes = (n: number) => env.clock.advance(n * 60_000);

describe('the cron scheduler on a controlled clock', () => {
  it('runs the system Function with the envelope at each occurrence, UTC by default', async () => {
    await env.jobs.configure({ queues: [], cron: [cron('hourly', '0 * * * *')] });
    env.invoker.consumers.set('tick', () => 'ok');
    env.worker();
    expect(await scheduler.tick()).toEqual([]);
    minutes(1);
    expect(await scheduler.tick()).toEqual([]);
    minutes(1);
    const [fire] = await scheduler.tick();
    expect(fire).toMatchObject({ name: 'hourly', scheduledAt: '2025-01-15T12:00:00.000Z' });
    expect(await scheduler.tick()).toEqual([]);
    await waitFor(() => env.invoker.calls.length === 1);
    expect(env.invoker.calls[0]?.request).toMatchObject({
      input: { source: 'platform.cron', name: 'hourly', scheduledAt: '2025-01-15T12:00:00.000Z' },
      caller: { kind: 'system' },
      origin: 'platform',
      job: null,
    });
    await waitFor(async () => (await runs())[0]?.state === 'succeeded');
  });

  it('coalesces missed runs into the latest occurrence within 24 hours', async () => {
    await env.jobs.configure({
      queues: [],
      cron: [cron('ten', '*/10 * * * *'), cron('weekly', '0 6 * * MON')],
    });
    await scheduler.tick();
    // Down for 3 hours: 18 occurrences of "ten" were missed, one run catches up.
    minutes(180);
    const fired = await scheduler.tick();
    expect(fired.map((f) => [f.name, f.scheduledAt])).toEqual([
      ['ten', '2025-01-15T14:50:00.000Z'],
    ]);
    // Down for 6 days, across Monday 06:00 (more than 24 hours ago by then): "ten" runs once for
    // its latest occurrence, "weekly" is not recovered.
    minutes(6 * 24 * 60);
    const later = await scheduler.tick();
    expect(later.map((f) => [f.name, f.scheduledAt])).toEqual([
      ['ten', '2025-01-21T14:50:00.000Z'],
    ]);
    // Down 30 hours across the next Monday 06:00, which is within 24 hours of the restart.
    env.clock.set('2025-01-27T20:00:00.000Z');
    const monday = await scheduler.tick();
    expect(monday.map((f) => [f.name, f.scheduledAt])).toContainEqual([
      'weekly',
      '2025-01-27T06:00:00.000Z',
    ]);
  });

  it('never runs a disabled schedule, and re-enabling starts from now', async () => {
    await env.jobs.configure({ queues: [], cron: [cron('off', '* * * * *', { enabled: false })] });
    for (let i = 0; i < 5; i++) {
      minutes(1);
      expect(await scheduler.tick()).toEqual([]);
    }
    await env.jobs.configure({ queues: [], cron: [cron('off', '* * * * *', { enabled: true })] });
    expect(await scheduler.tick()).toEqual([]);
    minutes(1);
    expect((await scheduler.tick()).map((f) => f.scheduledAt)).toEqual([
      '2025-01-15T12:04:00.000Z',
    ]);
    expect(await scheduler.nextRun(cron('off', '* * * * *', { enabled: false }))).toBeNull();
  });

  it('delays runs while the previous one holds the capacity, never drops them', async () => {
    await env.jobs.configure({ queues: [], cron: [cron('every', '* * * * *')] });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    env.invoker.consumers.set('tick', () => gate);
    // The manual clock jumps minutes at once; a long lease keeps the blocked run its own.
    env.worker({ leaseSeconds: 3600 });
    await scheduler.tick();
    for (let i = 0; i < 3; i++) {
      minutes(1);
      await scheduler.tick();
    }
    await waitFor(async () => (await runs()).some((r) => r.state === 'running'));
    expect((await runs()).map((r) => r.state).sort()).toEqual(['queued', 'queued', 'running']);
    release();
    await waitFor(async () => (await runs()).every((r) => r.state === 'succeeded'));
    expect(env.invoker.calls).toHaveLength(3);
  });

  it('creates each run once when several brokers tick the same schedules', async () => {
    await env.jobs.configure({
      queues: [],
      cron: [cron('a', '* * * * *'), cron('b', '*/2 * * * *')],
    });
    const others = [1, 2, 3].map(() => new CronScheduler({ jobs: env.jobs }));
    const all = [scheduler, ...others];
    await Promise.all(all.map((s) => s.tick()));
    for (let i = 0; i < 6; i++) {
      minutes(1);
      await Promise.all(all.map((s) => s.tick()));
    }
    const got = await scheduled();
    expect(got).toHaveLength(6 + 3);
    expect(new Set(got.map((at, i) => `${at}${i}`)).size).toBe(got.length);
    const rows = await env.db.query<{ queue: string; n: number }>(
      `select queue, count(*)::int as n from platform.jobs where kind = 'cron' group by queue, payload->>'scheduledAt' having count(*) > 1`,
    );
    expect(rows.rows).toEqual([]);
  });

  it('handles the DST nights of a daily schedule in its zone', async () => {
    const berlin = cron('nightly', '30 2 * * *', { timezone: 'Europe/Berlin' });
    await env.jobs.configure({ queues: [], cron: [berlin] });
    for (const [from, to] of [
      ['2025-03-29T20:00:00Z', '2025-03-30T06:00:00Z'],
      ['2025-10-25T20:00:00Z', '2025-10-26T06:00:00Z'],
    ] as const) {
      env.clock.set(from);
      await scheduler.tick();
      while (env.clock.now() < new Date(to)) {
        minutes(1);
        await scheduler.tick();
      }
    }
    // Spring: 02:30 does not exist, the run is at 03:00 CEST. The jump to October recovers the
    // latest occurrence within 24 hours (25 October). Fall: 02:30 CEST, once.
    expect(await scheduled()).toEqual([
      '2025-03-30T01:00:00.000Z',
      '2025-10-25T00:30:00.000Z',
      '2025-10-26T00:30:00.000Z',
    ]);
  });

  it('triggers a run by hand with the envelope', async () => {
    await env.jobs.configure({
      queues: [],
      cron: [cron('report', '0 0 1 1 *', { enabled: false })],
    });
    const fire = await scheduler.trigger('report');
    expect(fire).toMatchObject({ name: 'report', scheduledAt: '2025-01-15T11:58:30.000Z' });
    await expect(scheduler.trigger('nope')).rejects.toMatchObject({ code: 'CRON_NOT_DECLARED' });
  });
});
