// Background jobs end to end (enqueue → no-op consumer → succeeded): jobs per second and
// enqueue-to-start latency (p50, p99) of the broker's engine on PGlite and on a throwaway
// PostgreSQL, beside pg-boss running the same no-op workload on the same PostgreSQL in the same
// run. Both engines get the same shape: 8 producers calling enqueue/send one job at a time,
// consumer concurrency 8, a 500 ms polling interval with an in-process wake-up on enqueue (ours:
// the job service notifies the worker; pg-boss: `notifyWorker` after each send). "Done" is
// pg-boss's table polled every 10 ms, and for ours the worker's own reports of outcomes it has
// committed (no statement of the bench's on the database being measured).
//
// What "no-op consumer" means per row:
// - "in-process": the broker's JobWorker with an invoker that answers `{ result: null }` at
//   once, so the row measures the engine (claim, lease, complete), like pg-boss's handler;
// - "Deno Function": a real broker (startBroker) with a real Deno consumer Function, so the row
//   adds bundling-free dispatch: HTTP to the Function process, the runtime, and back.
// Latency is from just before the enqueue call to the start of the attempt (our claim committed;
// pg-boss's handler called).
//
// As a suite of bench/run.ts: `jobs: () => import('./jobs/jobs.ts')`.
// Then the scale: the Deno consumer at concurrency 1, 8 and 64 on PGlite against PostgreSQL; and
// one enqueue on PGlite with 20,000 finished jobs kept against none.
// Alone: `npx tsx --conditions=@platform/source bench/jobs/jobs.ts`. JOBS_BENCH_COUNT=500,
// JOBS_BENCH_SCALE=1,8,64, JOBS_BENCH_ROUNDS=3 (alternated rounds of the goal figures).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PgBoss from 'pg-boss';
import { platformSchema } from '../../packages/broker/src/app/platform-schema.ts';
import { startBroker } from '../../packages/broker/src/app/start-broker.ts';
import type { Database } from '../../packages/broker/src/db/database.ts';
import { defaultSnapshotPath, openDatabase } from '../../packages/broker/src/db/open-database.ts';
import { FileService } from '../../packages/broker/src/files/file-service.ts';
import type { DeployedFunction } from '../../packages/broker/src/functions/invoker.ts';
import { JobService } from '../../packages/broker/src/jobs/job-service.ts';
import { type AttemptReport, JobWorker } from '../../packages/broker/src/jobs/job-worker.ts';
import { anonymousCaller } from '../../packages/broker/src/kernel/caller.ts';
import { startPostgres } from '../../packages/broker/test/helpers/postgres-server.ts';
import { median, numbersFromEnv, type Row, row } from '../report.ts';

const COUNT = Number(process.env.JOBS_BENCH_COUNT ?? 500);
const CONCURRENCY = 8;
const PRODUCERS = 8;
const QUEUE = 'bench';
const now = () => performance.timeOrigin + performance.now();

/** One engine's run. */
export interface Result {
  readonly jobsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** Consumer concurrencies of the scale figures (`JOBS_BENCH_SCALE=1,8,64`; empty skips them). */
const SCALE = numbersFromEnv('JOBS_BENCH_SCALE', '1,8,64');

const queueDeclaration = (concurrency = CONCURRENCY) => ({
  name: QUEUE,
  function: 'noop',
  concurrency,
  maxAttempts: 3,
  retryDelaySeconds: 1,
  retryBackoff: false,
  timeoutSeconds: 60,
});

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/** Enqueues COUNT jobs from PRODUCERS concurrent loops; resolves to each job's enqueue time. */
async function produce(send: (i: number) => Promise<string>): Promise<Map<string, number>> {
  const sentAt = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: PRODUCERS }, async () => {
      while (next < COUNT) {
        const i = next++;
        const at = now();
        sentAt.set(await send(i), at);
      }
    }),
  );
  return sentAt;
}

async function until(done: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('jobs bench: the jobs did not finish in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * What our worker reports of a run: each attempt's start, and how many succeeded (counted after
 * the outcome committed). Reading "done" from these instead of querying the jobs table keeps the
 * bench's own statements off the database it measures: on PGlite they took turns with the
 * engine's on its one thread.
 */
class Attempts {
  readonly startedAt = new Map<string, number>();
  succeeded = 0;

  readonly record = (report: AttemptReport): void => {
    this.startedAt.set(report.id, report.startedAt);
    if (report.outcome === 'succeeded') this.succeeded++;
  };

  readonly finished = async (): Promise<number> => this.succeeded;
}

/** Runs the workload: `send` enqueues, `startedAt` holds attempt starts, `finished` counts. */
async function measure(
  send: (i: number) => Promise<string>,
  startedAt: ReadonlyMap<string, number>,
  finished: () => Promise<number>,
): Promise<Result> {
  const began = now();
  const sentAt = await produce(send);
  await until(async () => (await finished()) >= COUNT);
  const seconds = (now() - began) / 1000;
  const latencies = [...sentAt].map(([id, at]) => (startedAt.get(id) ?? NaN) - at);
  latencies.sort((a, b) => a - b);
  return {
    jobsPerSecond: COUNT / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

/** Finished jobs in the history when the enqueue figure with history is taken. */
const HISTORY = 20_000;

/**
 * Runs `fn` with the broker's job service on a new app database (PGlite when `databaseUrl` is
 * empty), its bench queue declared; the database and folder are removed afterwards.
 */
async function withJobService<T>(
  databaseUrl: string,
  fn: (jobs: JobService, db: Database) => Promise<T>,
): Promise<T> {
  const appDir = await mkdtemp(join(tmpdir(), 'bench-jobs-'));
  const { db } = await openDatabase({
    appDir,
    databaseUrl,
    snapshotPath: defaultSnapshotPath(),
    platformSchema,
  });
  try {
    // No job here grants files: the file service is never asked.
    const jobs = new JobService(db, new FileService(db, join(appDir, 'files')));
    await jobs.configure({ queues: [queueDeclaration()], cron: [] });
    return await fn(jobs, db);
  } finally {
    await db.close();
    await rm(appDir, { recursive: true, force: true });
  }
}

/**
 * The median time of one enqueue on PGlite, one at a time, with an empty history and with
 * {@link HISTORY} finished jobs kept (the active-jobs limit counts active rows only).
 */
async function enqueueWithHistory(history: number): Promise<number> {
  return withJobService('', async (jobs, db) => {
    await db.query(
      `INSERT INTO platform.jobs (id, kind, app_id, environment, namespace, queue, state, payload,
         payload_hash, idempotency_key, max_attempts, concurrency, retry_delay_seconds, retry_backoff,
         timeout_seconds, run_at, created_at, updated_at, finished_at)
       SELECT 'job_done_' || g, 'job', $2, $3, $4, $5, 'succeeded', '{}', 'h', 'done' || g, 1, 1, 1,
         false, 1, now(), now(), now(), now()
       FROM generate_series(1, $1::int) g`,
      [history, jobs.scope.appId, jobs.scope.environment, jobs.scope.namespace, QUEUE],
    );
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      await jobs.enqueue(QUEUE, { payload: { i }, idempotencyKey: `k${i}` });
      if (i >= 20) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return percentile(times, 0.5);
  });
}

/** The broker's engine with an in-process no-op consumer. */
async function oursInProcess(databaseUrl: string): Promise<Result> {
  return withJobService(databaseUrl, async (jobs, db) => {
    const attempts = new Attempts();
    const worker = new JobWorker({
      jobs,
      invoker: {
        get: (name) => ({ name, access: 'system' }) as DeployedFunction,
        call: async () => new Response('{"result":null}'),
      },
      onAttempt: attempts.record,
    });
    worker.start();
    const tag = Math.random().toString(36).slice(2);
    const result = await measure(
      async (i) =>
        (await jobs.enqueue(QUEUE, { payload: { i }, idempotencyKey: `${tag}-${i}` })).job.id,
      attempts.startedAt,
      attempts.finished,
    );
    await worker.stop();
    await db.query(`DELETE FROM platform.jobs WHERE queue = $1`, [QUEUE]);
    return result;
  });
}

/** A real broker whose consumer is a real Deno Function that returns at once. */
export async function oursDeno(databaseUrl: string, concurrency = CONCURRENCY): Promise<Result> {
  const appDir = await mkdtemp(join(tmpdir(), 'bench-jobs-'));
  await writeFile(
    join(appDir, 'noop.ts'),
    `import { defineFunction, s } from '@platform/server';
export default defineFunction({ input: s.object({ i: s.number() }), handler: async () => null });\n`,
  );
  const attempts = new Attempts();
  const broker = await startBroker({
    appDir,
    sdkVersion: '2.6.0',
    databaseUrl,
    snapshotPath: defaultSnapshotPath(),
    logWriter: () => undefined,
    authenticate: async () => anonymousCaller,
    jobs: {
      queues: [queueDeclaration(concurrency)],
      onAttempt: attempts.record,
    },
  });
  try {
    await broker.addFunction({ name: 'noop', entrypoint: 'noop.ts', access: 'system' });
    // Its process starts on the first call: started here, so the figures are the steady state
    // rather than one process start spread over the first jobs.
    await broker.invoker.get('noop')?.process.ready();
    const jobs = broker.jobs.service;
    const tag = Math.random().toString(36).slice(2);
    const result = await measure(
      async (i) =>
        (await jobs.enqueue(QUEUE, { payload: { i }, idempotencyKey: `${tag}-${i}` })).job.id,
      attempts.startedAt,
      attempts.finished,
    );
    await broker.db.query(`DELETE FROM platform.jobs WHERE queue = $1`, [QUEUE]);
    return result;
  } finally {
    await broker.close();
    await rm(appDir, { recursive: true, force: true });
  }
}

/**
 * pg-boss with the same workload: CONCURRENCY workers of one job each, polling every 0.5 s, one
 * of them woken (`notifyWorker`) after each send.
 */
async function pgBoss(databaseUrl: string): Promise<Result> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    max: 10,
    supervise: false,
    schedule: false,
  });
  boss.on('error', (error) => console.error('pg-boss:', error));
  await boss.start();
  try {
    await boss.createQueue(QUEUE);
    const startedAt = new Map<string, number>();
    const workers: string[] = [];
    for (let w = 0; w < CONCURRENCY; w++) {
      const id = await boss.work(
        QUEUE,
        { batchSize: 1, pollingIntervalSeconds: 0.5 },
        async (jobs) => {
          for (const job of jobs) startedAt.set(job.id, now());
        },
      );
      workers.push(id);
    }
    let turn = 0;
    const db = boss.getDb();
    return await measure(
      async (i) => {
        const id = await boss.send(QUEUE, { i });
        if (id === null) throw new Error('pg-boss did not create the job');
        // Wake a worker, as our enqueue wakes our worker in-process: without it every pg-boss
        // worker sleeps its polling interval after each fetch (8 workers: 16 jobs/s at most).
        boss.notifyWorker(workers[turn++ % workers.length] ?? '');
        return id;
      },
      startedAt,
      async () => {
        const { rows } = await db.executeSql(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'`,
          [QUEUE],
        );
        return Number((rows[0] as { n: number } | undefined)?.n ?? 0);
      },
    );
  } finally {
    await boss.stop({ graceful: true, wait: true, timeout: 5000 });
  }
}

/** Rounds of the goal figures (`JOBS_BENCH_ROUNDS`). */
const GOAL_ROUNDS = Number(process.env.JOBS_BENCH_ROUNDS ?? 3);

/**
 * The goal figures: the Deno consumer on PGlite and on PostgreSQL in alternated rounds, the
 * first side changing every round. Each side's figures are its medians; each ratio is the
 * median of the rounds' own ratios, whose two sides ran one after the other.
 */
async function goalRounds(databaseUrl: string) {
  const embedded: Result[] = [];
  const server: Result[] = [];
  for (let round = 0; round < GOAL_ROUNDS; round++) {
    if (round % 2 === 0) {
      embedded.push(await oursDeno(''));
      server.push(await oursDeno(databaseUrl));
    } else {
      server.push(await oursDeno(databaseUrl));
      embedded.push(await oursDeno(''));
    }
  }
  const medianOf = (results: Result[]): Result => ({
    jobsPerSecond: median(results.map((r) => r.jobsPerSecond)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
  });
  const ratios = (figure: (r: Result) => number) =>
    median(embedded.map((r, i) => figure(r) / figure(server[i] as Result)));
  return {
    embedded: medianOf(embedded),
    server: medianOf(server),
    p50Ratio: ratios((r) => r.p50),
    throughputRatio: ratios((r) => r.jobsPerSecond),
  };
}

const perSecond = (r: Result) => `${r.jobsPerSecond.toFixed(0)} jobs/s`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

function rows(name: string, ours: Result, baseline: Result): Row[] {
  return [
    row(
      `jobs ${name}: end to end`,
      perSecond(ours),
      perSecond(baseline),
      ours.jobsPerSecond / baseline.jobsPerSecond,
    ),
    row(
      `jobs ${name}: enqueue-to-start p50`,
      ms(ours.p50),
      ms(baseline.p50),
      ours.p50 / baseline.p50,
    ),
    row(
      `jobs ${name}: enqueue-to-start p99`,
      ms(ours.p99),
      ms(baseline.p99),
      ours.p99 / baseline.p99,
    ),
  ];
}

/**
 * The jobs suite. Every ratio is ours ÷ pg-boss on PostgreSQL (higher is better for jobs/s,
 * lower for latency), then ours on PGlite ÷ ours on PostgreSQL, with the embedded default's
 * goals. PostgreSQL comes from scripts/setup-system.sh.
 */
export async function run(): Promise<Row[]> {
  const pglite = await oursInProcess('');
  const cluster = await startPostgres();
  try {
    const postgres = await oursInProcess(cluster.url);
    const goal = await goalRounds(cluster.url);
    const pgliteDeno = goal.embedded;
    const postgresDeno = goal.server;
    const boss = await pgBoss(cluster.url);
    // How throughput grows with the consumer's concurrency: PGlite against PostgreSQL, both with
    // the Deno consumer, same run.
    const scale: Row[] = [];
    const withoutHistory = await enqueueWithHistory(0);
    const withHistory = await enqueueWithHistory(HISTORY);
    for (const concurrency of SCALE) {
      const embedded = await oursDeno('', concurrency);
      const server = await oursDeno(cluster.url, concurrency);
      scale.push(
        row(
          `jobs scale: concurrency ${concurrency}, Deno consumer, PGlite vs PostgreSQL: end to end`,
          perSecond(embedded),
          perSecond(server),
          embedded.jobsPerSecond / server.jobsPerSecond,
        ),
        row(
          `jobs scale: concurrency ${concurrency}, Deno consumer, PGlite vs PostgreSQL: enqueue-to-start p50`,
          ms(embedded.p50),
          ms(server.p50),
          embedded.p50 / server.p50,
        ),
      );
    }
    return [
      ...rows('PostgreSQL, in-process consumer, vs pg-boss', postgres, boss),
      ...rows('PGlite, in-process consumer, vs pg-boss on PostgreSQL', pglite, boss),
      ...rows('PostgreSQL, Deno Function consumer, vs pg-boss', postgresDeno, boss),
      ...rows('PGlite, Deno Function consumer, vs pg-boss on PostgreSQL', pgliteDeno, boss),
      // The embedded default against the same engine on PostgreSQL, same run.
      row(
        `jobs PGlite vs PostgreSQL, Deno Function consumer: enqueue-to-start p50 (${GOAL_ROUNDS} rounds)`,
        ms(pgliteDeno.p50),
        ms(postgresDeno.p50),
        goal.p50Ratio,
        { text: 'ratio <= 2', met: goal.p50Ratio <= 2 },
      ),
      row(
        `jobs PGlite vs PostgreSQL, Deno Function consumer: end to end (${GOAL_ROUNDS} rounds)`,
        perSecond(pgliteDeno),
        perSecond(postgresDeno),
        goal.throughputRatio,
        { text: 'ratio >= 0.8', met: goal.throughputRatio >= 0.8 },
      ),
      ...scale,
      row(
        `jobs PGlite: one enqueue p50, ${HISTORY.toLocaleString('en-US')} finished jobs kept vs none`,
        ms(withHistory),
        ms(withoutHistory),
        withHistory / withoutHistory,
      ),
    ];
  } finally {
    await cluster.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
