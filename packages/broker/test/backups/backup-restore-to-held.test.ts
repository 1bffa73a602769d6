// A copy restored from a backup beside the live app under platform dev is held for inspection:
// the reminder job queued at the backup stays queued in the copy while the live app runs it,
// the daily digest's cron fires in the live app and not in the copy, and an email its owner
// makes it send is captured in the copy's outbox. Its pages, data API and directly invoked
// Functions still work. Time moves by the injected clock both apps share.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { fillPath } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { ownerApiPaths } from '../../src/http/paths.ts';
import type { Job } from '../../src/jobs/job-rows.ts';
import { DAY, HOUR, TestClock } from '../auth/helpers.ts';
import { copyExample, devFor } from '../e2e/helpers.ts';
import { waitFor } from '../jobs/engine-helpers.ts';
import { call } from '../serve/serve-harness.ts';

// 06:00 in Berlin: the daily digest (08:00 Europe/Berlin) is due within the day.
const clock = new TestClock(Date.parse('2026-03-03T05:00:00Z'));
let app: Awaited<ReturnType<typeof copyExample>>;
let dev: DevServer;

beforeAll(async () => {
  app = await copyExample('todo');
  ({ dev } = await devFor(app.path, { watch: false, inMemory: true, clock }, 'sign-in'));
}, 180_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const bearer = () => ({ authorization: `Bearer ${dev.devToken}` });

describe('a copy restored from a backup is held for inspection', { timeout: 120_000 }, () => {
  let port: number;
  let liveJobId: string;
  let todoId: string;
  const copy = (path: string) => call(port, `todo-copy.localhost:${port}`, path, bearer());

  it('runs none of the work queued or scheduled at the backup, which the live app runs', async () => {
    todoId = randomUUID();
    await dev.broker.db.query(
      "INSERT INTO public.todos (id, owner_id, title) VALUES ($1, $2, 'water the plants')",
      [todoId, randomUUID()],
    );
    // A reminder due in an hour, and the daily digest's schedule recorded: both in the backup.
    const { job } = await dev.broker.jobs.service.enqueue('reminders', {
      payload: { todoId, to: 'ann@example.com' },
      idempotencyKey: 'reminder-at-backup',
      delaySeconds: 3600,
    });
    liveJobId = job.id;
    await dev.broker.jobs.scheduler.tick();
    const taken = await dev.fetch(
      new Request(`${dev.url}${fillPath(ownerApiPaths.backups, { appId: dev.appId })}`, {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    expect(taken.status).toBe(201);
    const backupId = ((await taken.json()) as { backup: { id: string } }).backup.id;
    const restored = await dev.fetch(
      new Request(
        `${dev.url}${fillPath(ownerApiPaths.backups, { appId: dev.appId })}/${backupId}/restore`,
        {
          method: 'POST',
          headers: { ...bearer(), 'content-type': 'application/json' },
          body: JSON.stringify({ to: 'todo-copy' }),
        },
      ),
    );
    expect(restored.status).toBe(201);
    const url = ((await restored.json()) as { app: { url: string } }).app.url;
    port = Number(new URL(url).port);

    // A day later: the reminder and the digest are due in both apps.
    clock.advance(DAY + HOUR);
    await waitFor(
      async () => (await dev.broker.jobs.service.get(liveJobId)).state === 'succeeded',
      20_000,
    );
    const lastDigest = (body: string) => {
      const { schedules } = JSON.parse(body) as {
        schedules: { name: string; lastRun: unknown }[];
      };
      return schedules.find((one) => one.name === 'daily-digest')?.lastRun ?? null;
    };
    await waitFor(async () => {
      const answer = await dev.fetch(
        new Request(`${dev.url}/v1/apps/${dev.appId}/cron`, { headers: bearer() }),
      );
      return lastDigest(await answer.text());
    });
    const liveMail = (await dev.broker.outbox.list(10)).map((one) => one.to);
    expect(liveMail).toEqual([['ann@example.com']]);

    // Several polls of the copy's worker and ticks of its cron later, nothing ran there.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const listed = await copy('/v1/apps/todo-copy/jobs?limit=20');
    expect(listed.status).toBe(200);
    const jobs = (JSON.parse(listed.body) as { jobs: Job[] }).jobs;
    expect(lastDigest((await copy('/v1/apps/todo-copy/cron')).body)).toBeNull();
    expect(jobs.find((one) => one.id === liveJobId)).toMatchObject({
      state: 'queued',
      attempt: 0,
    });
    const mail = await copy('/v1/apps/todo-copy/outbox');
    expect(mail.status).toBe(200);
    expect(JSON.stringify(JSON.parse(mail.body))).not.toContain('ann@example.com');
  });

  it('still serves its data, and captures the email a Function its owner invokes sends', async () => {
    const todos = await postTo(
      port,
      `todo-copy.localhost:${port}`,
      '/v1/apps/todo-copy/invoke/sendReminder',
      bearer(),
      JSON.stringify({ input: { todoId, to: 'bob@example.com' } }),
    );
    expect(todos.status, todos.body).toBe(200);
    expect(JSON.parse(todos.body)).toMatchObject({ result: { captured: true, delivered: 0 } });
    const mail = await copy('/v1/apps/todo-copy/outbox');
    expect(mail.body).toContain('bob@example.com');
    // Never the live app's: its outbox has only the reminder its own job sent.
    expect(JSON.stringify(await dev.broker.outbox.list(10))).not.toContain('bob@example.com');
    const stats = await call(port, `todo-copy.localhost:${port}`, '/api/stats');
    expect(stats.status).toBe(200);
  });
});

/** A POST to the app serving at `host` on `port` (its host name picks the app). */
function postTo(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { host, 'content-type': 'application/json', ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
