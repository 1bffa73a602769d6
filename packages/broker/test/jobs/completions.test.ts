import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { Completions } from '../../src/jobs/completions.ts';
import { claimJobs } from '../../src/jobs/job-claims.ts';
import { engine, queue } from './engine-helpers.ts';

let env: Awaited<ReturnType<typeof engine>>;
beforeEach(async () => {
  env = await engine();
  await env.jobs.configure({ queues: [queue('q', 'f', { concurrency: 10 })], cron: [] });
});
afterEach(() => env.cleanup());

/** Enqueues `count` jobs and claims them all for `owner`. */
async function running(count: number, owner = 'w1') {
  for (let i = 0; i < count; i++) {
    await env.jobs.enqueue('q', { payload: { i }, idempotencyKey: `k${i}` });
  }
  return claimJobs(
    env.db,
    env.jobs.scope,
    { kind: 'job', queue: 'q' },
    { max: count, owner, leaseSeconds: 30, now: env.clock.now() },
  );
}

/** `db` with its `query` replaced. */
function withQuery(db: Database, query: Database['query']): Database {
  return new Proxy(db, {
    get(target, key) {
      if (key === 'query') return query;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('Completions', () => {
  it('records attempts that finish together, in fewer statements than attempts', async () => {
    const rows = await running(6);
    let statements = 0;
    const completions = new Completions(
      withQuery(env.db, (sql, params) => {
        statements++;
        return env.db.query(sql, params);
      }),
    );
    const at = env.clock.now();
    const recorded = await Promise.all(
      rows.map((row) => completions.record(row.id, { owner: 'w1', attempt: row.attempt }, at)),
    );
    expect(recorded).toEqual([true, true, true, true, true, true]);
    // The first is written at once; the five that arrive meanwhile go in the next statement.
    expect(statements).toBe(2);
    for (const row of rows) {
      expect(await env.jobs.get(row.id)).toMatchObject({
        state: 'succeeded',
        finishedAt: at.toISOString(),
      });
    }
  });

  it('answers false for an attempt whose lease was lost, true for the others of its batch', async () => {
    const [kept, lost, late] = await running(3);
    if (!kept || !lost || !late) throw new Error('three rows were claimed');
    const completions = new Completions(env.db);
    const at = env.clock.now();
    const answers = await Promise.all([
      completions.record(kept.id, { owner: 'w1', attempt: kept.attempt }, at),
      completions.record(lost.id, { owner: 'another', attempt: lost.attempt }, at),
      completions.record(late.id, { owner: 'w1', attempt: late.attempt + 1 }, at),
    ]);
    expect(answers).toEqual([true, false, false]);
    expect((await env.jobs.get(lost.id)).state).toBe('running');
    expect((await env.jobs.get(late.id)).state).toBe('running');
  });

  it('rejects every completion of a failed write, and writes the next ones', async () => {
    const rows = await running(3);
    let fail = true;
    const completions = new Completions(
      withQuery(env.db, async (sql, params) => {
        if (!fail) return env.db.query(sql, params);
        fail = false;
        throw new Error('database gone');
      }),
    );
    const at = env.clock.now();
    const [first, second, third] = rows.map((row) => ({
      id: row.id,
      lease: { owner: 'w1', attempt: row.attempt },
    }));
    if (!first || !second || !third) throw new Error('three rows were claimed');
    const failed = completions.record(first.id, first.lease, at);
    await expect(failed).rejects.toThrow('database gone');
    expect(
      await Promise.all([
        completions.record(second.id, second.lease, at),
        completions.record(third.id, third.lease, at),
      ]),
    ).toEqual([true, true]);
    expect((await env.jobs.get(first.id)).state).toBe('running');
  });
});
