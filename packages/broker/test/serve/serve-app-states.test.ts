// What a deployed app answers at its address under `platform serve` beyond its own code: `ctx.ai`
// with no AI setting, the app while its owner is paused for verification, and once it was deleted. The service in its
// own process on a real PostgreSQL, the app deployed by the CLI, as in deployments.test.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountCredentials } from '../../src/auth/account-credentials.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { orgFeature } from '../../src/org/org-feature.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const root = new URL('../../../../', import.meta.url).pathname;
const bin = join(root, 'packages/broker/src/bin.ts');
const node = (args: string[]) => ['--conditions=@platform/source', '--import', 'tsx', ...args];

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

/** A free port on 127.0.0.1, so {base_url} can name it before the service starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One HTTP request to the service with the given Host. */
function call(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { host, ...headers }, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

/** Waits up to `ms` for `check` to hold, polling. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return true;
}

describe('a deployed app at its address under platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let serviceOutput = '';
  let port: number;
  let base: string;
  let appDir: string;

  /** The CLI in its own process, with only the private Secret Service's environment. */
  const cli = (args: string[], cwd = root) =>
    new Promise<{ code: number | null; out: string; err: string }>((done) => {
      const child = spawn(process.execPath, node([bin, ...args]), {
        cwd,
        env: { ...secrets.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out: string[] = [];
      const err: string[] = [];
      createInterface({ input: child.stdout }).on('line', (line) => out.push(line));
      createInterface({ input: child.stderr }).on('line', (line) => err.push(line));
      child.on('close', (code) => done({ code, out: out.join('\n'), err: err.join('\n') }));
    });

  let serviceEnv: NodeJS.ProcessEnv;
  const startService = () =>
    spawn(process.execPath, node([bin, 'serve']), {
      cwd: root,
      env: serviceEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  const deploy = () => cli(['deploy', appDir, '--to', base, '--app', 'todo']);

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
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !name.startsWith('PLATFORM_') && name !== 'DATABASE_URL',
      ),
    );
    serviceEnv = {
      ...clean,
      NO_COLOR: '1',
      PLATFORM_DATABASE_URL: postgres.url,
      PLATFORM_BASE_DOMAIN: 'localhost',
      PLATFORM_BASE_URL: base,
      PLATFORM_LISTEN: `127.0.0.1:${port}`,
      PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
      PLATFORM_FILES_DIR: join(dir.path, 'files'),
      PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
      PLATFORM_DRAIN_SECONDS: '5',
    };
    service = startService();
    const setupKey = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(serviceOutput)), 30_000);
      const look = (chunk: Buffer) => {
        serviceOutput += chunk;
        const key = /_platform\/setup\?key=([A-Za-z0-9_-]+)/.exec(serviceOutput)?.[1];
        if (key) {
          clearTimeout(timer);
          resolve(key);
        }
      };
      service.stdout?.on('data', look);
      service.stderr?.on('data', look);
    });
    // The first administrator through the printed link, as a person sets up the service.
    const made = await fetch(`${base}/_platform/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: new URLSearchParams({
        key: setupKey,
        email: 'ada@example.com',
        password: 'a long enough password',
      }),
    });
    expect(made.status).toBe(200);
    // The credential platform login would keep: minted as its device flow mints it, kept in
    // the Secret Service under the account the CLI reads.
    const central = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', '/platform_central?'),
      1,
    );
    try {
      const { rows } = await central.query<{ id: string }>(
        "SELECT id::text FROM platform.accounts WHERE email = 'ada@example.com'",
      );
      const credentials = new AccountCredentials(central, systemClock);
      const ada = await credentials.issue(rows[0]?.id as string, 'test CLI');
      const keep = join(dir.path, 'keep.mts');
      await writeFile(
        keep,
        `import { openCredentialStore } from ${JSON.stringify(join(root, 'packages/broker/src/cli/credential-store.ts'))};
const store = await openCredentialStore();
await store.put(process.argv[2], process.argv[3]);
`,
      );
      const kept = await new Promise<number | null>((done) =>
        spawn(process.execPath, node([keep, `account/${base}`, ada.token]), {
          env: { ...secrets.env },
          stdio: 'ignore',
        }).on('close', done),
      );
      expect(kept).toBe(0);
    } finally {
      await central.close();
    }
  }, 80_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  const app = (path: string, headers: Record<string, string> = {}) =>
    call(port, `todo.localhost:${port}`, path, headers);
  const centralQuery = async (sql: string) => {
    const central = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', '/platform_central?'),
      1,
    );
    try {
      await central.query(sql);
    } finally {
      await central.close();
    }
  };

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

  it('answers APP_DELETED (410) at its address once deleted, also after the service restarted', async () => {
    // What the deletion of the organisation's only member does to its apps: the organisation's
    // own erasure, in the central store (the account deletion flow runs it in one transaction).
    const central = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', '/platform_central?'),
      1,
    );
    try {
      const organisation = orgFeature({ apps: () => [] }).erasure?.organisation;
      await central.transaction(async (tx) => organisation?.(tx));
    } finally {
      await central.close();
    }
    // The revision still running answers as deleted once it sees its owner is gone.
    const gone = async () => (await app('/api/hello')).status === 410;
    expect(await eventually(gone, 10_000)).toBe(true);
    expect(JSON.parse((await app('/api/hello')).body)).toMatchObject({
      error: { code: 'APP_DELETED' },
    });

    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    service = startService();
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
  }, 90_000);
});
