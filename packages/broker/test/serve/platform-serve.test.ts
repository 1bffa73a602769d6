import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../e2e/helpers.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const bin = join(root, 'packages/broker/src/bin.ts');
const BASE = 'base.localhost';

/** `platform serve` as a real process with only the given PLATFORM_* settings. */
function spawnServe(env: Record<string, string>, args: string[] = []): ChildProcess {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PLATFORM_') && name !== 'DATABASE_URL',
    ),
  );
  return spawn(process.execPath, ['--conditions=@platform/source', bin, 'serve', ...args], {
    cwd: root,
    env: { ...clean, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Collects a process's output; `until` waits for a stdout or stderr text to match. */
function collect(child: ChildProcess) {
  const out = { stdout: '', stderr: '' };
  const waiters: (() => void)[] = [];
  const notify = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    out.stdout += chunk;
    notify();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out.stderr += chunk;
    notify();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const until = async (pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(out.stdout) ?? pattern.exec(out.stderr);
      if (match) return match;
      if (Date.now() > deadline) {
        throw new Error(`no ${pattern} in:\n${out.stdout}\n${out.stderr}`);
      }
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { out, exited, until };
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** One HTTP request to the service with the given Host (fetch may not set Host). */
function call(
  port: number,
  host: string,
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: init.method ?? 'GET',
        headers: { host, ...init.headers },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.once('error', reject);
    req.end(init.body);
  });
}

describe('platform serve', () => {
  let postgres: PostgresServer;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let output: ReturnType<typeof collect>;
  let port: number;
  let metricsUrl: string;
  let setupKey: string;

  beforeAll(async () => {
    postgres = await startPostgres();
    dir = await tempDir('platform-serve-');
    service = spawnServe({
      PLATFORM_DATABASE_URL: postgres.url,
      PLATFORM_BASE_DOMAIN: BASE,
      PLATFORM_BASE_URL: `http://${BASE}`,
      PLATFORM_LISTEN: '127.0.0.1:0',
      PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
      PLATFORM_FILES_DIR: join(dir.path, 'files'),
      PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
      PLATFORM_DRAIN_SECONDS: '20',
    });
    output = collect(service);
    const started = await output.until(
      /"listen":"http:\/\/127\.0\.0\.1:(\d+)".*"metrics":"([^"]+)"/,
    );
    port = Number(started[1]);
    metricsUrl = started[2] as string;
    setupKey = (await output.until(/_platform\/setup\?key=([A-Za-z0-9_-]+)/))[1] as string;
  }, 60_000);

  afterAll(async () => {
    if (service.exitCode === null) service.kill('SIGKILL');
    await postgres?.stop();
    await dir?.remove();
  });

  it('refuses bad settings with one line naming each, no stack trace, and exit 2', async () => {
    const bad = spawnServe({
      PLATFORM_LISTEN: 'not-an-address',
      PLATFORM_DRAIN_SECONDS: '0',
      PLATFORM_BASE_DOMAIN: 'https://apps.example.com',
    });
    const { out, exited } = collect(bad);
    expect(await exited).toBe(2);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^platform serve: PLATFORM_BASE_DOMAIN: expected a domain name/),
      expect.stringMatching(/^platform serve: PLATFORM_LISTEN: expected host:port/),
      expect.stringMatching(/^platform serve: PLATFORM_DRAIN_SECONDS: expected 1 to 600/),
      expect.stringMatching(/^platform serve: PLATFORM_DATABASE_URL: required/),
    ]);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it('names a bad setting of the config file by its key and refuses unknown keys', async () => {
    const config = join(dir.path, 'platform-serve.json');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(config, JSON.stringify({ databaseUrl: 'mysql://x', listn: '1' })),
    );
    const { out, exited } = collect(spawnServe({}, ['--config', config]));
    expect(await exited).toBe(2);
    expect(out.stderr).toContain('listn (');
    expect(out.stderr).toMatch(/PLATFORM_DATABASE_URL \(databaseUrl in .*\): expected a postgres/);
  });

  it('answers healthz and readyz on every host', async () => {
    for (const host of [`${BASE}:${port}`, `todo.${BASE}:${port}`, 'elsewhere.example:80']) {
      expect((await call(port, host, '/_platform/healthz')).status).toBe(200);
      const ready = await call(port, host, '/_platform/readyz');
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toEqual({ status: 'ready' });
    }
  });

  it('routes by Host: the base domain, an app without deployment, an unknown host', async () => {
    const base = await call(port, `${BASE}:${port}`, '/');
    expect(base.status).toBe(200);
    expect(base.body).toContain(BASE);
    const app = await call(port, `todo.${BASE}:${port}`, '/');
    expect(app.status).toBe(404);
    expect(app.body).toContain('No app is deployed at this address');
    const unknown = await call(port, `other.example:${port}`, '/');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('answers no site at this address');
    const deeper = await call(port, `a.todo.${BASE}:${port}`, '/');
    expect(deeper.status).toBe(404);
    expect(deeper.body).not.toContain('No app is deployed');
  });

  it('answers deployments without an account credential with AUTH_REQUIRED', async () => {
    for (const method of ['GET', 'POST']) {
      const answer = await call(port, `${BASE}:${port}`, '/v1/apps/todo/deployments', { method });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).error).toMatchObject({ code: 'AUTH_REQUIRED' });
    }
  });

  it('sets up the first platform administrator once through the printed link', async () => {
    const host = `${BASE}:${port}`;
    const form = await call(port, host, `/_platform/setup?key=${setupKey}`);
    expect(form.status).toBe(200);
    expect(form.body).toContain('Set up the platform administrator');
    expect((await call(port, host, '/_platform/setup?key=wrong')).status).toBe(410);
    const post = (email: string) =>
      call(port, host, '/_platform/setup', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: `http://${host}`,
        },
        body: new URLSearchParams({
          key: setupKey,
          email,
          password: 'a long enough password',
        }).toString(),
      });
    const made = await post('ada@example.com');
    expect(made.status).toBe(200);
    expect(made.body).toContain('You are the platform administrator');
    expect((await post('eve@example.com')).status).toBe(410);
    const client = new pg.Client({
      connectionString: postgres.url.replace('/postgres?', '/platform_central?'),
    });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT a.email, m.role FROM platform.platform_admins p
         JOIN platform.accounts a ON a.id = p.account_id
         JOIN platform.memberships m ON m.account_id = p.account_id`,
      );
      expect(rows).toEqual([{ email: 'ada@example.com', role: 'administrator' }]);
      const links = await client.query('SELECT secret_hash FROM platform.setup_links');
      expect(JSON.stringify(links.rows)).not.toContain(setupKey);
    } finally {
      await client.end();
    }
  });

  it('logs one JSON line per request with no secret in it', async () => {
    const lines = output.out.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests.length).toBeGreaterThan(10);
    const setup = requests.find(
      (line) => line.route === '/_platform/setup' && line.method === 'POST',
    );
    expect(setup).toMatchObject({ host: BASE, app: 'base', status: 200 });
    expect(setup.requestId).toMatch(/^req_/);
    expect(setup.durationMs).toEqual(expect.any(Number));
    expect(requests.find((line) => line.app === 'todo' && line.route === '/')).toMatchObject({
      host: `todo.${BASE}`,
      status: 404,
    });
    expect(output.out.stdout).not.toContain(setupKey);
    expect(output.out.stdout).not.toContain('a long enough password');
  });

  it('serves Prometheus text with the request counter per app on the metrics address', async () => {
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toMatch(
      /platform_http_requests_total\{app="base",method="GET",status="200"\} \d+/,
    );
    expect(text).toMatch(
      /platform_http_requests_total\{app="todo",method="GET",status="404"\} \d+/,
    );
    expect(text).toContain('platform_http_request_duration_seconds_bucket');
    expect(text).toContain('platform_process_cpu_user_seconds_total');
    expect(text).toMatch(
      /platform_db_pool_connections\{pool="platform_central",state="total"\} \d+/,
    );
  });

  it('drains on SIGTERM: every request in flight is answered, then exit 0', async () => {
    const host = `${BASE}:${port}`;
    const pending: Promise<number>[] = [];
    const bodies: ((rest: string) => void)[] = [];
    for (let i = 0; i < 10; i++) {
      pending.push(
        new Promise((resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              path: '/_platform/setup',
              method: 'POST',
              agent: false,
              headers: {
                host,
                origin: `http://${host}`,
                'content-type': 'application/x-www-form-urlencoded',
                'transfer-encoding': 'chunked',
              },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.once('error', reject);
          req.flushHeaders();
          req.write('key=');
          bodies.push((rest) => req.end(rest));
        }),
      );
    }
    // The requests are in the server's hands (headers read, bodies still coming) when it stops.
    await new Promise((resolve) => setTimeout(resolve, 500));
    service.kill('SIGTERM');
    await output.until(/"msg":"draining"/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const end of bodies) end(`${setupKey}&email=late%40example.com&password=whatever-long`);
    const statuses = await Promise.all(pending);
    // The link is used up: each one is answered as a used link, none is cut off.
    expect(statuses).toEqual(Array(10).fill(410));
    expect(await output.exited).toBe(0);
    expect(output.out.stdout).toMatch(/"unfinished":0,"msg":"stopped"/);
  });
});
