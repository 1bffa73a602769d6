// SIGTERM while callers keep a deployed app's Function busy: the service stops accepting, every
// request it had accepted is answered whole (the Function's processes stop only after), and it
// exits 0. The service in its own process on a real PostgreSQL, the app deployed by the CLI.
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  deploy,
  freePort,
  keepCredential,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
} from './serve-harness.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: slow
    entrypoint: functions/slow/index.ts
    access: public
    route:
      path: /api/slow
      methods: [GET]
`;

// Long enough that SIGTERM always finds calls in the middle of their Function.
const slowSource = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async () => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return { done: true };
  },
});
`;

/** One call's outcome: its status and whole body, or the socket error of one never answered. */
type Outcome = { status: number; body: string } | { error: string };

function callSlow(port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/api/slow',
        agent: false,
        headers: { host: `load.localhost:${port}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ error: `response ${error.code ?? error.message}` }),
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message }),
    );
    req.end();
  });
}

describe('platform serve draining under load', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let port: number;
  const stdout: string[] = [];

  beforeAll(async () => {
    [postgres, secrets, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-drain-'),
    ]);
    port = await freePort();
    const base = `http://localhost:${port}`;
    await writeFiles(join(dir.path, 'load'), {
      'platform.yaml': manifest,
      'functions/slow/index.ts': slowSource,
    });
    service = startService({
      ...serveEnv(postgres.url, base, port, dir.path),
      PLATFORM_DRAIN_SECONDS: '20',
    });
    service.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk.toString('utf8')));
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
    const token = await adaCredential(postgres.url);
    expect(await keepCredential(secrets.env, dir.path, base, token)).toBe(0);
    await deploy(secrets.env, join(dir.path, 'load'), base, 'load');
  }, 90_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  it('answers every accepted call whole while 20 callers keep going, then exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => service.on('exit', resolve));
    const outcomes: Outcome[] = [];
    // Each caller calls again as soon as it has its answer, until the service refuses it.
    const caller = async () => {
      for (;;) {
        const outcome = await callSlow(port);
        outcomes.push(outcome);
        if ('error' in outcome) return;
      }
    };
    const callers = Array.from({ length: 20 }, caller);
    // Under way: some calls answered, the others in the middle of theirs.
    const until = Date.now() + 30_000;
    while (outcomes.length < 40 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    service.kill('SIGTERM');
    await Promise.all(callers);
    expect(await exited).toBe(0);

    const answered = outcomes.filter(
      (one): one is { status: number; body: string } => 'status' in one,
    );
    const refused = outcomes.filter((one): one is { error: string } => 'error' in one);
    // Every answer is a whole, successful one: none cut off or failed by the stop.
    expect(answered.length).toBeGreaterThanOrEqual(40);
    for (const one of answered) {
      expect(one.status).toBe(200);
      expect(JSON.parse(one.body)).toEqual({ result: { done: true } });
    }
    // The calls that failed were never accepted: the connection was refused or reset before
    // the service read a request on it.
    expect(refused.length).toBe(20);
    for (const one of refused) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(one.error);
    // Every request the service read (one log line each) is one of the whole answers.
    const lines = stdout
      .join('')
      .split('\n')
      .filter((line) => line.includes('"route":"/api/slow"'));
    expect(lines.length).toBe(answered.length);
    expect(stdout.join('')).toMatch(/"unfinished":0,"msg":"stopped"/);
  }, 60_000);
});
