// `platform jobs` and `platform cron` as clients of a running broker found through
// .platform/dev.json (the file `platform dev` writes), with real Deno cron Functions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { CronSummary } from '../../src/jobs/cron/cron-summary.ts';
import type { JobPage } from '../../src/jobs/job-history.ts';
import { writeDevState } from '../../src/project/dev-state.ts';
import { brokerFor } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { queue } from './engine-helpers.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;
const jobIds: string[] = [];

beforeAll(async () => {
  env = await brokerFor(
    {
      'functions/tick.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ source: s.literal('platform.cron'), name: s.string(), scheduledAt: s.string() }),
  handler: async () => null,
});
`,
      'functions/strict.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({ input: s.object({}), handler: async () => null });
`,
    },
    {
      jobs: {
        // No consumer Function is loaded, so these jobs wait in `queued`.
        queues: [queue('work', 'consume'), queue('other', 'consume')],
        cron: [
          { name: 'tick', schedule: '0 0 1 1 *', function: 'tick', enabled: true, timezone: 'UTC' },
          {
            name: 'strict',
            schedule: '0 0 1 1 *',
            function: 'strict',
            enabled: false,
            timezone: 'UTC',
          },
        ],
        pollMs: 50,
      },
    },
  );
  await Promise.all([
    env.broker.addFunction({ name: 'tick', entrypoint: 'functions/tick.ts', access: 'system' }),
    env.broker.addFunction({ name: 'strict', entrypoint: 'functions/strict.ts', access: 'system' }),
  ]);
  for (let i = 0; i < 3; i++) {
    const { job } = await env.broker.jobs.service.enqueue(i === 1 ? 'other' : 'work', {
      payload: { i },
      idempotencyKey: `k${i}`,
    });
    jobIds.unshift(job.id);
  }
  await writeDevState(env.appDir, {
    url: env.broker.server.url,
    appId: env.broker.appId,
    pid: process.pid,
    token: 't',
  });
}, 120_000);
afterAll(() => env?.cleanup());

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    cwd: env.appDir,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('platform jobs', () => {
  it('lists the jobs newest first, one line each', async () => {
    const { code, out } = await cli('jobs');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(jobIds[0]);
    expect(lines[0]).toMatch(/ work {2}queued {2}attempt 0\/3$/);
    expect(out).not.toContain('k0'); // never an idempotency key
  });

  it('passes --queue, --state, --limit and --cursor to the jobs API (--json)', async () => {
    const first = await cli('jobs', '--limit', '2', '--json', '--app', env.appDir);
    const page = JSON.parse(first.out) as JobPage;
    expect(page.jobs.map((j) => j.id)).toEqual(jobIds.slice(0, 2));
    expect(page.nextCursor).not.toBeNull();
    const rest = JSON.parse((await cli('jobs', '--json', '--cursor', page.nextCursor ?? '')).out);
    expect((rest as JobPage).jobs.map((j) => j.id)).toEqual(jobIds.slice(2));
    const other = JSON.parse((await cli('jobs', '--json', '--queue', 'other')).out) as JobPage;
    expect(other.jobs.map((j) => j.queue)).toEqual(['other']);
    expect(JSON.parse((await cli('jobs', '--json', '--state', 'succeeded')).out)).toEqual({
      jobs: [],
      nextCursor: null,
    });
    const text = await cli('jobs', '--limit', '1');
    expect(text.out).toContain('More jobs: run again with --cursor ');
  });

  it('reports bad values, bad flags and a missing platform dev', async () => {
    expect(await cli('jobs', '--state', 'done')).toMatchObject({
      code: 1,
      err: expect.stringContaining('INVALID_INPUT (400)'),
    });
    expect((await cli('jobs', '--limit', 'x')).code).toBe(2);
    expect((await cli('jobs', '--bogus')).code).toBe(2);
    const empty = await tempDir();
    try {
      expect(await cli('jobs', '--app', empty.path)).toMatchObject({
        code: 1,
        err: expect.stringContaining('No platform dev is running'),
      });
    } finally {
      await empty.remove();
    }
  });
});

describe('platform jobs enqueue', () => {
  it('enqueues a job into a declared queue as the system, once per idempotency key', async () => {
    const made = await cli('jobs', 'enqueue', 'work', '{"todoId":"t1"}', '--json');
    expect(made.code).toBe(0);
    const { job, created } = JSON.parse(made.out) as { job: { id: string }; created: boolean };
    expect(created).toBe(true);
    expect(await env.broker.jobs.service.get(job.id)).toMatchObject({
      queue: 'work',
      state: 'queued',
    });
    // The payload reached the queue as given.
    const stored = await env.broker.jobs.service.db.query<{ payload: unknown }>(
      'select payload from platform.jobs where id = $1',
      [job.id],
    );
    expect(stored.rows[0]?.payload).toEqual({ todoId: 't1' });

    const once = await cli('jobs', 'enqueue', 'other', '{"n":1}', '--idempotency-key', 'cli-1');
    expect(once).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Enqueued:\n.* other {2}queued /),
    });
    const again = await cli('jobs', 'enqueue', 'other', '{"n":1}', '--idempotency-key', 'cli-1');
    expect(again.out).toMatch(/^Already enqueued with this key:\n/);
    expect(again.out.split('\n')[1]).toBe(once.out.split('\n')[1]);
    const delayed = await cli('jobs', 'enqueue', 'work', '{}', '--delay', '60', '--json');
    expect(JSON.parse(delayed.out).job.runAt).not.toBeNull();
  });

  it('refuses an undeclared queue, a payload that is not an object and bad usage', async () => {
    expect(await cli('jobs', 'enqueue', 'nope', '{}')).toMatchObject({
      code: 1,
      err: expect.stringContaining('QUEUE_NOT_DECLARED (404)'),
    });
    expect(await cli('jobs', 'enqueue', 'work', '[1]')).toMatchObject({
      code: 2,
      err: expect.stringContaining('<json> must be a JSON object'),
    });
    expect((await cli('jobs', 'enqueue', 'work', '{oops')).code).toBe(2);
    expect((await cli('jobs', 'enqueue', 'work')).code).toBe(2);
    expect((await cli('jobs', 'enqueue', 'work', '{}', '--delay', 'soon')).code).toBe(2);
    expect((await cli('jobs', 'push', 'work', '{}')).code).toBe(2);
  });

  it('the route takes JSON only, so a cross-site form cannot enqueue', async () => {
    const response = await fetch(
      `${env.broker.server.url}/v1/apps/${env.broker.appId}/queues/work/jobs`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'payload=x',
      },
    );
    expect(response.status).toBe(415);
  });
});

describe('platform cron', () => {
  it('runs a schedule now and waits for it (--wait)', async () => {
    const { code, out } = await cli('cron', 'run', 'tick', '--wait');
    expect(code).toBe(0);
    expect(out).toMatch(/^tick job_[0-9a-f]{32} succeeded$/);
    const list = JSON.parse((await cli('cron', 'list', '--json')).out) as {
      schedules: CronSummary[];
    };
    expect(list.schedules[0]).toMatchObject({
      name: 'tick',
      lastRun: { manual: true, state: 'succeeded', lastError: null },
      nextRunAt: expect.stringMatching(/-01-01T00:00:00.000Z$/),
    });
    expect(list.schedules[1]).toMatchObject({ name: 'strict', lastRun: null, nextRunAt: null });
  });

  it('runs a disabled schedule too, and exits 1 when its Function rejects the envelope', async () => {
    const { code, out } = await cli('cron', 'run', 'strict', '--wait');
    expect(code).toBe(1);
    expect(out).toMatch(/^strict job_[0-9a-f]{32} dead_lettered: INVALID_INPUT: /);
  });

  it('starts a run without waiting, and refuses unknown names and bad usage', async () => {
    const started = await cli('cron', 'run', 'tick');
    expect(started).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Started tick \(run job_/),
    });
    expect(await cli('cron', 'run', 'nope')).toMatchObject({
      code: 1,
      err: expect.stringContaining('CRON_NOT_DECLARED (404)'),
    });
    expect((await cli('cron', 'run')).code).toBe(2);
    expect((await cli('cron')).code).toBe(2);
    expect((await cli('cron', 'list')).out).toContain("tick  '0 0 1 1 *' UTC  tick  last: ");
  });

  it('accepts the manual trigger only as JSON (no cross-site form posts)', async () => {
    const response = await fetch(
      `${env.broker.server.url}/v1/apps/${env.broker.appId}/cron/tick/run`,
      {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '{}',
      },
    );
    expect(response.status).toBe(415);
    const other = await fetch(`${env.broker.server.url}/v1/apps/other/cron/tick/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(other.status).toBe(404);
  });
});
