import { afterAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { type ChildBroker, type ChildEvent, startChild } from './child-broker.ts';

const consumer = `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ i: s.number() }),
  handler: async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return ctx.job;
  },
});
`;

const queues = [
  {
    name: 'work',
    function: 'consume',
    concurrency: 3,
    maxAttempts: 3,
    retryDelaySeconds: 1,
    retryBackoff: false,
    timeoutSeconds: 30,
  },
];

const children: ChildBroker[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const child of children) await child.kill();
  for (const cleanup of cleanups) await cleanup();
});

describe('a broker killed with SIGKILL while jobs run', () => {
  it('loses no job and counts the interrupted attempts when it starts again', async () => {
    const dir = await tempDir('broker-jobs-kill-');
    cleanups.push(dir.remove);
    await writeFiles(dir.path, { 'functions/consume.ts': consumer });
    const env = {
      APP_DIR: dir.path,
      DATABASE_URL: '',
      QUEUES: JSON.stringify(queues),
      LEASE_SECONDS: '2',
      WATCH: '1',
    };

    const first = startChild({ ...env, ENQUEUE: JSON.stringify([{ queue: 'work', count: 12 }]) });
    children.push(first);
    const inflight = (await first.next('inflight')) as ChildEvent & { ids: string[] };
    await first.kill();

    const second = startChild(env);
    children.push(second);
    const final = (await second.next('jobs', 60_000)) as ChildEvent & {
      rows: { id: string; state: string; attempt: number; code: string | null }[];
    };
    await second.stop();

    expect(final.rows).toHaveLength(12);
    expect(inflight.ids.length).toBeGreaterThanOrEqual(2);
    // Every job succeeded. An attempt that ran when the broker died counts (attempt 2, with the
    // lost attempt as its latest error); every other job ran exactly once.
    for (const row of final.rows) {
      expect(row.state).toBe('succeeded');
      expect([
        [1, null],
        [2, 'JOB_ATTEMPT_LOST'],
      ]).toContainEqual([row.attempt, row.code]);
    }
    const interrupted = final.rows.filter((r) => r.code === 'JOB_ATTEMPT_LOST');
    expect(interrupted.length).toBeGreaterThanOrEqual(1);
    expect(interrupted.length).toBeLessThanOrEqual(queues[0]!.concurrency);
    // The restarted broker ran each job at most once.
    const runs = second.events.filter((e) => e.type === 'attempt').map((e) => e.id);
    expect(new Set(runs).size).toBe(runs.length);
  });
});
