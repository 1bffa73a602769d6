// `platform serve` while its PostgreSQL server restarts under load: the node keeps running (a
// connection the server ends while a caller holds it must not end the process) and answers
// again once the server is back, without a restart of its own; what the outage reached fails
// with the retryable DATABASE_UNAVAILABLE.
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppTokens } from '../../src/auth/app-tokens.ts';
import { appDatabaseName } from '../../src/db/database-per-app.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  call,
  deploy,
  freePort,
  keepCredential,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  waitReady,
} from './serve-harness.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - { name: write, entrypoint: functions/write.ts, access: user }
`;
/** One POST of JSON to `port` with the Host `host`, on a connection of its own. */
function post(
  port: number,
  host: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent: false,
        headers: { host, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let b = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          b += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
      },
    );
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}
/** Callers writing rows at once while the server restarts. */
const CALLERS = 20;
/** How long the server stays down. */
const DOWN_MS = 2_000;
/** How long the node may take to answer again once the server is back. */
const BACK_WITHIN_MS = 10_000;

describe('platform serve while PostgreSQL restarts', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let port: number;
  let service: ChildProcess;
  let token: string;

  beforeAll(async () => {
    [postgres, secrets, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-pg-restart-'),
    ]);
    port = await freePort();
    const base = `http://localhost:${port}`;
    service = startService(serveEnv(postgres.url, base, port, join(dir.path, 'node')));
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
    await waitReady(port, `localhost:${port}`);
    expect(
      await keepCredential(secrets.env, dir.path, base, await adaCredential(postgres.url)),
    ).toBe(0);
    const appDir = join(dir.path, 'todo');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'migrations/001_notes.sql': 'create table notes (id text primary key, body text);\n',
      'functions/write.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ id: s.string() }),
  handler: async (ctx) => ctx.data.table('notes').create({ id: ctx.input.id, body: 'x' }),
});
`,
    });
    await deploy(secrets.env, appDir, base, 'todo');
    const db = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', `/${appDatabaseName('todo')}?`),
      1,
    );
    try {
      token = (await new AppTokens(db, systemClock, 'todo').issue('restart test')).token;
    } finally {
      await db.close();
    }
  }, 120_000);

  afterAll(async () => {
    service?.kill('SIGKILL');
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  it(`keeps running and answers again once the server is back, under ${CALLERS} writers`, async () => {
    if (!postgres.restart) throw new Error('This PostgreSQL cannot be restarted by the tests.');
    const host = `todo.localhost:${port}`;
    let phase: 'before' | 'during' | 'after' = 'before';
    const answers = {
      before: new Map<string, number>(),
      during: new Map<string, number>(),
      after: new Map<string, number>(),
    };
    let stop = false;
    let next = 0;
    const writer = async () => {
      while (!stop) {
        const answer = await post(
          port,
          host,
          '/_platform/api/functions/write',
          { id: `n${next++}` },
          {
            authorization: `Bearer ${token}`,
          },
        ).catch((error: unknown) => ({ status: 0, body: String(error) }));
        const code =
          answer.status === 200
            ? ''
            : (/"code":"([A-Z_]+)"/.exec(answer.body)?.[1] ?? answer.body.slice(0, 60));
        const key = `${answer.status} ${code}`.trim();
        const seen = answers[phase];
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    };
    const writers = Array.from({ length: CALLERS }, writer);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    phase = 'during';
    await postgres.restart(DOWN_MS);
    const backAt = Date.now();
    phase = 'after';
    // The node answers again (a write succeeds) within the bound, without being restarted.
    let firstOk = Number.POSITIVE_INFINITY;
    while (Date.now() - backAt < BACK_WITHIN_MS) {
      if ((answers.after.get('200') ?? 0) > 0) {
        firstOk = Date.now() - backAt;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stop = true;
    await Promise.all(writers);
    console.log(
      `answers before the restart ${JSON.stringify([...answers.before])}, while it was down ${JSON.stringify([...answers.during])}, after ${JSON.stringify([...answers.after])}; the first write succeeded ${firstOk} ms after the server was back`,
    );
    expect(service.exitCode).toBeNull();
    expect(service.signalCode).toBeNull();
    expect(firstOk).toBeLessThan(BACK_WITHIN_MS);
    // A request the outage reached fails retryably, never as a 500 with nothing to go on.
    for (const seen of [answers.during, answers.after]) {
      for (const key of seen.keys()) expect(['200', '503 DATABASE_UNAVAILABLE']).toContain(key);
    }
    expect((await call(port, `localhost:${port}`, '/_platform/readyz')).status).toBe(200);
  }, 60_000);
});
