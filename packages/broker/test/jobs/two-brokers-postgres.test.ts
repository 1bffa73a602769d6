import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileService } from '../../src/files/file-service.ts';
import { JobService, localScope } from '../../src/jobs/job-service.ts';
import { writeFiles } from '../helpers/broker.ts';
import { openPostgres } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { type ChildBroker, type ChildEvent, startChild } from './child-broker.ts';
import { waitFor } from './engine-helpers.ts';

const consumer = `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ i: s.number() }),
  handler: async (ctx) => ctx.job,
});
`;

const queues = [
  {
    name: 'alpha',
    function: 'consume',
    concurrency: 4,
    maxAttempts: 3,
    retryDelaySeconds: 1,
    retryBackoff: false,
    timeoutSeconds: 30,
  },
  {
    name: 'beta',
    function: 'consume',
    concurrency: 2,
    maxAttempts: 3,
    retryDelaySeconds: 1,
    retryBackoff: false,
    timeoutSeconds: 30,
  },
];
const counts = { alpha: 700, beta: 300 };

type Attempt = ChildEvent & {
  id: string;
  queue: string;
  attempt: number;
  startedAt: number;
  endedAt: number;
  outcome: string;
  pid: number;
};

/** The largest number of attempts of one queue whose [start, end] intervals overlap. */
function maxInFlight(attempts: Attempt[]): number {
  const edges = attempts.flatMap((a) => [
    { at: a.startedAt, delta: 1 },
    { at: a.endedAt, delta: -1 },
  ]);
  // At equal times count the start first: the pessimistic reading.
  edges.sort((x, y) => x.at - y.at || y.delta - x.delta);
  let now = 0;
  let max = 0;
  for (const edge of edges) {
    now += edge.delta;
    max = Math.max(max, now);
  }
  return max;
}

let pg: PostgresServer | undefined;
const children: ChildBroker[] = [];
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const child of children) await child.stop();
  for (const cleanup of cleanups) await cleanup();
  await pg?.stop();
}, 60_000);

describe('two brokers on one PostgreSQL', () => {
  it('run 1,000 jobs exactly once each without exceeding any queue concurrency', {
    timeout: 180_000,
  }, async () => {
    const url = (pg as NonNullable<typeof pg>).url;
    const setupDir = await tempDir('broker-jobs-setup-');
    cleanups.push(setupDir.remove);
    const { db } = await openPostgres(url, setupDir.path);
    cleanups.push(() => db.close());
    // Two brokers of one app: the same app id, although their folders (and so the ids each
    // would derive from its folder name) differ.
    const appId = 'shared-app';
    const jobs = new JobService(db, new FileService(db, '/nonexistent'), {
      scope: { ...localScope, appId },
    });
    await jobs.configure({ queues, cron: [] });

    const dirs = await Promise.all([tempDir('broker-jobs-a-'), tempDir('broker-jobs-b-')]);
    for (const dir of dirs) {
      cleanups.push(dir.remove);
      await writeFiles(dir.path, { 'functions/consume.ts': consumer });
    }
    const env = { DATABASE_URL: url, APP_ID: appId, QUEUES: JSON.stringify(queues) };
    // Start one after the other: both bootstrap the same database.
    for (const dir of dirs) {
      const child = startChild({ ...env, APP_DIR: dir.path });
      children.push(child);
      await child.next('ready');
    }

    // 100 concurrent enqueues with one key create one job, on PostgreSQL too.
    const burst = await Promise.all(
      Array.from({ length: 100 }, () =>
        jobs.enqueue('alpha', { payload: { i: -1 }, idempotencyKey: 'burst' }),
      ),
    );
    expect(new Set(burst.map((b) => b.job.id)).size).toBe(1);
    expect(burst.filter((b) => b.created)).toHaveLength(1);

    const started = performance.now();
    const enqueues: Promise<unknown>[] = [];
    for (const [queue, count] of Object.entries(counts)) {
      for (let i = 0; i < count - (queue === 'alpha' ? 1 : 0); i++) {
        enqueues.push(jobs.enqueue(queue, { payload: { i }, idempotencyKey: `${queue}-${i}` }));
      }
    }
    await Promise.all(enqueues);
    await waitFor(async () => {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from platform.jobs where state = 'succeeded'`,
      );
      return rows[0]?.n === 1000;
    }, 150_000);
    const seconds = (performance.now() - started) / 1000;

    const { rows } = await db.query<{ state: string; attempt: number; n: number }>(
      'select state, attempt, count(*)::int as n from platform.jobs group by state, attempt',
    );
    expect(rows).toEqual([{ state: 'succeeded', attempt: 1, n: 1000 }]);
    const reported = () =>
      children.flatMap((c) => c.events.filter((e): e is Attempt => e.type === 'attempt'));
    // A child reports an attempt on its output after the completion committed: the last
    // report may still be on its way when the database already counts 1,000.
    await waitFor(() => reported().length >= 1000).catch(() => undefined);
    const attempts = reported();
    expect(attempts).toHaveLength(1000);
    expect(new Set(attempts.map((a) => a.id)).size).toBe(1000);
    expect(attempts.every((a) => a.outcome === 'succeeded' && a.attempt === 1)).toBe(true);
    const byProcess = new Map<number, number>();
    for (const a of attempts) byProcess.set(a.pid, (byProcess.get(a.pid) ?? 0) + 1);
    expect(byProcess.size).toBe(2);
    const measured: Record<string, number> = {};
    for (const q of queues) {
      measured[q.name] = maxInFlight(attempts.filter((a) => a.queue === q.name));
      expect(measured[q.name]).toBeLessThanOrEqual(q.concurrency);
    }
    console.log(
      `two brokers, one PostgreSQL: 1000 jobs in ${seconds.toFixed(1)} s (${(1000 / seconds).toFixed(0)} jobs/s); ` +
        `max in flight alpha ${measured.alpha}/4, beta ${measured.beta}/2; per process ${[...byProcess.values()].join(' + ')}`,
    );
  });
});
