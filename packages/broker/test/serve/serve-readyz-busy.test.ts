// Readyz of `platform serve` on a node that is busy but healthy: requests holding every
// connection of the central store's pool must not make readyz wait behind them (a load balancer
// would take a busy node out, and every busy node at once), while a database that is down still
// turns readyz to 503 within the probes' bound.

import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CENTRAL_DATABASE } from '../../src/app/open-central.ts';
import { ensureDatabase } from '../../src/db/database-per-app.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { createServiceLogger } from '../../src/observability/logger.ts';
import { loadServeSettings } from '../../src/serve/serve-settings.ts';
import { type RunningService, startServe } from '../../src/serve/start-serve.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { call, freePort } from './serve-harness.ts';

/** Requests held at once: more than the central store's pool has connections (10). */
const HELD = 30;
/** How long the database stays down: longer than the probes' bound, so readyz must notice. */
const DOWN_MS = 6_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('readyz of a busy platform serve node', () => {
  let postgres: PostgresServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let service: RunningService;
  let port: number;
  let centralUrl: string;

  beforeAll(async () => {
    [postgres, dir, port] = await Promise.all([
      startPostgres(),
      tempDir('serve-readyz-'),
      freePort(),
    ]);
    const loaded = await loadServeSettings({
      env: {
        PLATFORM_DATABASE_URL: postgres.url,
        PLATFORM_BASE_DOMAIN: 'localhost',
        PLATFORM_BASE_URL: `http://localhost:${port}`,
        PLATFORM_LISTEN: `127.0.0.1:${port}`,
        PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
        PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
        PLATFORM_FILES_DIR: join(dir.path, 'files'),
      },
      cwd: dir.path,
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    service = await startServe({
      settings: loaded.settings,
      logger: createServiceLogger({ level: 'error', destination: { write: () => undefined } }),
      announce: () => undefined,
    });
    centralUrl = await ensureDatabase(postgres.url, CENTRAL_DATABASE);
  }, 120_000);
  afterAll(async () => {
    await service?.drain();
    await postgres?.stop();
    await dir?.remove();
  });

  const readyz = () => call(port, `localhost:${port}`, '/_platform/readyz');

  it('answers 200 at once while requests hold every connection of the central pool', async () => {
    expect((await readyz()).status).toBe(200);
    // A request for an app that is not deployed asks the central store whether it was deleted;
    // a table lock held elsewhere keeps each such request on its pooled connection.
    const locker = await PostgresDatabase.connect(centralUrl, 2);
    let unlock = () => {};
    const locked = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const holding = locker.transaction(async (tx) => {
      await tx.query('LOCK TABLE platform.deleted_apps IN ACCESS EXCLUSIVE MODE');
      await locked;
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    let held: Promise<unknown>[] = [];
    try {
      await sleep(200);
      held = Array.from({ length: HELD }, (_, i) =>
        call(port, `ghost${i}.localhost:${port}`, '/').catch(() => undefined),
      );
      // Every connection of the pool waits on the lock (and the other requests wait for one).
      const deadline = Date.now() + 20_000;
      for (;;) {
        const { rows } = await locker.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = $1 AND wait_event_type = 'Lock'`,
          [CENTRAL_DATABASE],
        );
        if (Number(rows[0]?.n) >= 10) break;
        if (Date.now() > deadline) throw new Error('the held requests never filled the pool');
        await sleep(50);
      }
      delay.enable();
      const answers: { status: number; ms: number }[] = [];
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        const answer = await readyz();
        answers.push({ status: answer.status, ms: Math.round(performance.now() - started) });
        await sleep(300);
      }
      delay.disable();
      // The measurement, for docs/scaling.md: how long readyz took and how late the event loop ran.
      console.log(
        `readyz with ${HELD} requests holding the central pool: ${JSON.stringify(answers)}; event-loop delay p50 ${(delay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, max ${(delay.max / 1e6).toFixed(1)} ms`,
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    } finally {
      unlock();
      await holding;
      await locker.close();
      await Promise.all(held);
    }
  }, 60_000);

  it('answers 503 within the bound while the database is down, and 200 once it is back', async () => {
    if (!postgres.restart) throw new Error('This PostgreSQL cannot be restarted by the tests.');
    expect((await readyz()).status).toBe(200);
    const stoppedAt = Date.now();
    let back = false;
    const restarting = postgres.restart(DOWN_MS).then(() => {
      back = true;
    });
    let downAnswer: { status: number; body: string } | undefined;
    let seenAfterMs = 0;
    while (!back) {
      const answer = await readyz();
      if (answer.status === 503) {
        downAnswer = answer;
        seenAfterMs = Date.now() - stoppedAt;
        break;
      }
      await sleep(100);
    }
    console.log(`readyz answered 503 ${seenAfterMs} ms after the stop began`);
    // Seen while the server was still down (it stays down longer than the probes' bound).
    expect(back).toBe(false);
    expect(downAnswer?.status).toBe(503);
    expect(JSON.parse(downAnswer?.body ?? '{}')).toEqual({
      status: 'not ready',
      reason: 'central store unreachable',
    });
    await restarting;
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await readyz()).status;
      if (status === 200) break;
      await sleep(100);
    }
    expect(status).toBe(200);
  }, 60_000);
});
