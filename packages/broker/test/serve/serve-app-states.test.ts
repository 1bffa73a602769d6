// What a deployed app answers at its address under `platform serve` beyond its own code: `ctx.ai`
// with no AI setting, the app while its owner is paused for verification, and once it was deleted. The service in its
// own process on a real PostgreSQL, the app deployed by the CLI, as in deployments.test.ts.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgFeature } from '../../src/org/org-feature.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  call,
  cli,
  eventually,
  freePort,
  keepCredential,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  withCentral,
} from './serve-harness.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: hello
    entrypoint: functions/hello/index.ts
    access: public
    route:
      path: /api/hello
      methods: [GET]
  - name: ask
    entrypoint: functions/ask/index.ts
    access: public
    route:
      path: /api/ask
      methods: [GET]
`;

const helloSource = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async () => ({ hello: 'world' }),
});
`;

// Answers the error ctx.ai gives, so the test sees its code.
const askSource = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async ({ ai }) => {
    try {
      return { text: (await ai.generateText({ prompt: 'Say hello' })).text };
    } catch (error) {
      return { code: (error as { code?: string }).code ?? 'none' };
    }
  },
});
`;

describe('a deployed app at its address under platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let port: number;
  let base: string;
  let appDir: string;

  let serviceEnv: NodeJS.ProcessEnv;
  const deploy = () => cli(secrets.env, ['deploy', appDir, '--to', base, '--app', 'todo']);

  beforeAll(async () => {
    [postgres, secrets, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-app-states-'),
    ]);
    port = await freePort();
    base = `http://localhost:${port}`;
    appDir = join(dir.path, 'todo');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'functions/hello/index.ts': helloSource,
      'functions/ask/index.ts': askSource,
      'public/index.html': '<h1>Notes</h1>',
    });
    serviceEnv = serveEnv(postgres.url, base, port, dir.path);
    service = startService(serviceEnv);
    const key = await setupKey(service);
    expect((await setUpAdministrator(base, key)).status).toBe(200);
    // The credential platform login would keep, in the Secret Service under the account the CLI
    // reads.
    const token = await adaCredential(postgres.url);
    expect(await keepCredential(secrets.env, dir.path, base, token)).toBe(0);
  }, 80_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  const app = (path: string, headers: Record<string, string> = {}) =>
    call(port, `todo.localhost:${port}`, path, headers);
  const centralQuery = (sql: string) =>
    withCentral(postgres.url, async (central) => {
      await central.query(sql);
    });

  it('answers ctx.ai with FEATURE_NOT_AVAILABLE when the service has no AI setting', async () => {
    const deployed = await deploy();
    expect(deployed.err).toBe('');
    expect(deployed.code).toBe(0);
    const hello = await app('/api/hello');
    expect(hello.status).toBe(200);
    const asked = await app('/api/ask');
    expect(asked.status).toBe(200);
    // Not the offline AI's made-up text: no model answers unless the operator configures one.
    expect(JSON.parse(asked.body)).toEqual({ result: { code: 'FEATURE_NOT_AVAILABLE' } });
  }, 60_000);

  it('answers the verification-required page and ACCOUNT_VERIFICATION_REQUIRED while its owner is paused', async () => {
    // The state an unconfirmed owner's account reaches at its verification deadline.
    await centralQuery(
      "UPDATE platform.accounts SET state = 'paused' WHERE email = 'ada@example.com'",
    );
    const paused = async () => (await app('/api/hello')).status === 503;
    expect(await eventually(paused, 10_000)).toBe(true);
    const api = await app('/api/hello');
    expect(JSON.parse(api.body)).toMatchObject({
      error: { code: 'ACCOUNT_VERIFICATION_REQUIRED' },
    });
    const page = await app('/', { accept: 'text/html' });
    expect(page.status).toBe(503);
    expect(page.body).toMatch(/confirm/i);
    expect(page.body).not.toContain('<h1>Notes</h1>');
    await centralQuery(
      "UPDATE platform.accounts SET state = 'confirmed' WHERE email = 'ada@example.com'",
    );
    const back = async () => (await app('/api/hello')).status === 200;
    expect(await eventually(back, 10_000)).toBe(true);
  }, 60_000);

  it('answers APP_DELETED (410) at its address once deleted, also after the service restarted, which removed its database and files', async () => {
    // What the deletion of the organisation's only member does to its apps: the organisation's
    // own erasure, in the central store (the account deletion flow runs it in one transaction).
    const organisation = orgFeature({ apps: () => [], visibility: 'private' }).erasure
      ?.organisation;
    await withCentral(postgres.url, (central) =>
      central.transaction(async (tx) => organisation?.(tx)),
    );
    // The revision still running answers as deleted once it sees its owner is gone.
    const gone = async () => (await app('/api/hello')).status === 410;
    expect(await eventually(gone, 10_000)).toBe(true);
    expect(JSON.parse((await app('/api/hello')).body)).toMatchObject({
      error: { code: 'APP_DELETED' },
    });

    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    service = startService(serviceEnv);
    service.stdout?.resume();
    service.stderr?.resume();
    const ready = async () =>
      (await call(port, `localhost:${port}`, '/_platform/readyz').catch(() => undefined))
        ?.status === 200;
    expect(await eventually(ready, 30_000)).toBe(true);
    // No revision runs now: the service itself answers for the deleted app.
    const api = await app('/api/hello');
    expect(api.status).toBe(410);
    expect(JSON.parse(api.body)).toMatchObject({ error: { code: 'APP_DELETED' } });
    const page = await app('/', { accept: 'text/html' });
    expect(page.status).toBe(410);
    expect(page.body).toContain('This app was deleted');
    // An address where nothing was ever deployed keeps the plain 404.
    expect((await call(port, `crm.localhost:${port}`, '/api/hello')).status).toBe(404);
    // What the service held of the app is gone: its database, revisions and state.
    const databases = await withCentral(postgres.url, async (central) =>
      (
        await central.query<{ datname: string }>(
          "SELECT datname FROM pg_database WHERE datname = 'platform_app_todo'",
        )
      ).rows.map((row) => row.datname),
    );
    expect(databases).toEqual([]);
    const files = join(dir.path, 'files');
    expect(existsSync(join(files, '_deployments', 'todo'))).toBe(false);
    expect(existsSync(join(files, '_app-state', 'todo'))).toBe(false);
    // The files go with the deleted-app sweep, which starts beside the service.
    await expect
      .poll(() => existsSync(join(files, 'files', 'todo')), { timeout: 15_000 })
      .toBe(false);
  }, 90_000);
});
