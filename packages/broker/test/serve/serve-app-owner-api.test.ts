// A deployed app's own owner API under `platform serve` (its backups here) admits the account
// credential of `platform login` of the app's owner and the organisation's administrators, at
// `{app_url}` and through `{base_url}`, which forwards to the app: `platform backups --to
// <base_url>` works. Another member is refused, an app access token stays refused, and a revoked
// or unknown account credential is AUTH_REQUIRED.
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountCredentials } from '../../src/auth/account-credentials.ts';
import { AppTokens } from '../../src/auth/app-tokens.ts';
import { appDatabaseName } from '../../src/db/database-per-app.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { centralAuthority } from '../../src/org/authority.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  adaId,
  call,
  freePort,
  HELLO_MANIFEST,
  issueAccountCredential,
  keepCredential,
  cli as platformCli,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  waitReady,
  withCentral,
} from './serve-harness.ts';

const manifest = HELLO_MANIFEST;

const hello = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async () => ({ hello: 'world' }),
});
`;

const migration = `create table notes (id integer primary key, text text not null);
insert into notes (id, text) values (1, 'first');
`;

/** A confirmed member of the organisation who is not an administrator, with a credential. */
async function member(postgresUrl: string, email: string): Promise<{ id: string; token: string }> {
  return withCentral(postgresUrl, async (central) => {
    await new Memberships(central).invite(await adaId(central), email);
    const { rows } = await central.query<{ id: string }>(
      `INSERT INTO platform.accounts (id, email, state, created_at)
       VALUES (gen_random_uuid(), $1, 'confirmed', now()) RETURNING id::text`,
      [email],
    );
    const id = rows[0]?.id as string;
    return { id, token: await issueAccountCredential(central, id, `${email} CLI`) };
  });
}

describe("a deployed app's owner API by platform login's account credential", () => {
  let postgres: PostgresServer;
  let keyring: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let output = '';
  let port: number;
  let base: string;
  let adaToken: string;
  let olive: { id: string; token: string };
  let eve: { id: string; token: string };

  const cli = (args: string[]) => platformCli(keyring.env, args);
  // By Host to the service's port, as `{app_url}` and `{base_url}` reach it.
  const backupsAt = (host: string, token: string, init: { method?: string } = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/apps/todo/backups',
          method: init.method ?? 'GET',
          headers: {
            host,
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
          },
          agent: false,
        },
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
      req.end(init.method === 'POST' ? '{}' : undefined);
    });
  const baseHost = () => `localhost:${port}`;
  const appHost = () => `todo.localhost:${port}`;
  const codeOf = (answer: { body: string }) =>
    (JSON.parse(answer.body) as { error: { code: string } }).error.code;

  beforeAll(async () => {
    [postgres, keyring, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-owner-api-'),
    ]);
    port = await freePort();
    base = `http://localhost:${port}`;
    const appDir = join(dir.path, 'todo');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'functions/hello/index.ts': hello,
      'migrations/001_notes.sql': migration,
    });
    service = startService(serveEnv(postgres.url, base, port, dir.path));
    service.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    service.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
    await waitReady(port, baseHost());
    adaToken = await adaCredential(postgres.url);
    expect(await keepCredential(keyring.env, dir.path, base, adaToken)).toBe(0);
    const deployed = await cli(['deploy', appDir, '--to', base, '--app', 'todo']);
    expect(deployed.code, `${deployed.err}\n${output.slice(-3000)}`).toBe(0);
    olive = await member(postgres.url, 'olive@example.com');
    eve = await member(postgres.url, 'eve@example.com');
    // Olive owns the app, so Ada acts only as the organisation's administrator.
    await withCentral(postgres.url, (central) =>
      centralAuthority(central).setOwner('todo', olive.id),
    );
  }, 120_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await Promise.all([postgres?.stop(), keyring?.stop()]);
    await dir?.remove();
  });

  it('lets the administrator take and list backups with platform backups --to <base_url>', async () => {
    const created = await cli(['backups', 'create', '--to', base, '--app', 'todo']);
    expect(created.code, `${created.err}\n${output.slice(-3000)}`).toBe(0);
    const id = /^Took (\S+) /.exec(created.out)?.[1];
    expect(id).toBeDefined();
    const listed = await cli(['backups', 'list', '--to', base, '--app', 'todo', '--json']);
    expect(listed.code, listed.err).toBe(0);
    const { backups } = JSON.parse(listed.out) as { backups: { id: string; kind: string }[] };
    expect(backups.map((one) => [one.id, one.kind])).toContainEqual([id, 'manual']);
    const restored = await cli(['backups', 'restore', id ?? '', '--to', base, '--app', 'todo']);
    expect(restored.code).toBe(2);
    expect(restored.err).toContain('--yes');
    const confirmed = await cli([
      'backups',
      'restore',
      id ?? '',
      '--yes',
      '--to',
      base,
      '--app',
      'todo',
    ]);
    expect(confirmed.code, `${confirmed.err}\n${output.slice(-3000)}`).toBe(0);
    expect(confirmed.out).toContain(`Restored ${id}`);
  }, 60_000);

  it("admits the owner's credential at {app_url} and through {base_url}", async () => {
    for (const host of [appHost(), baseHost()]) {
      const listed = await backupsAt(host, olive.token);
      expect(listed.status, host).toBe(200);
      expect((JSON.parse(listed.body) as { backups: unknown[] }).backups.length).toBeGreaterThan(0);
    }
  });

  it('refuses a member who neither owns the app nor administers the organisation', async () => {
    for (const host of [appHost(), baseHost()]) {
      for (const method of ['GET', 'POST']) {
        const refused = await backupsAt(host, eve.token, { method });
        expect(refused.status, `${method} at ${host}`).toBe(403);
        expect(codeOf(refused)).toBe('PERMISSION_DENIED');
      }
    }
  });

  it('keeps refusing app access tokens', async () => {
    const db = new pg.Client({
      connectionString: postgres.url.replace('/postgres?', `/${appDatabaseName('todo')}?`),
    });
    await db.connect();
    let appToken: string;
    try {
      const tokens = new AppTokens(
        { query: (text: string, params?: unknown[]) => db.query(text, params) } as never,
        systemClock,
        'todo',
      );
      appToken = (await tokens.issue('ci')).token;
    } finally {
      await db.end();
    }
    for (const host of [appHost(), baseHost()]) {
      const refused = await backupsAt(host, appToken, { method: 'POST' });
      expect(refused.status, host).toBe(403);
      expect(codeOf(refused)).toBe('PERMISSION_DENIED');
    }
  });

  it('answers AUTH_REQUIRED to a revoked or unknown account credential', async () => {
    const revoked = await withCentral(postgres.url, async (central) => {
      const credentials = new AccountCredentials(central, systemClock);
      const issued = await credentials.issue(await adaId(central), 'revoked CLI');
      expect(await credentials.revoke(issued.accountId, issued.id)).toBe(true);
      return issued.token;
    });
    const unknown = `plat_account_${'A'.repeat(43)}`;
    for (const host of [appHost(), baseHost()]) {
      for (const token of [revoked, unknown]) {
        const refused = await backupsAt(host, token);
        expect(refused.status, host).toBe(401);
        expect(codeOf(refused)).toBe('AUTH_REQUIRED');
      }
    }
    // The CLI says so and exits as signed out.
    expect(await keepCredential(keyring.env, dir.path, base, revoked)).toBe(0);
    const listed = await cli(['backups', 'list', '--to', base, '--app', 'todo']);
    expect(listed.err).toContain('AUTH_REQUIRED');
    expect(listed.code).not.toBe(0);
  }, 30_000);

  it('refuses a request without any credential', async () => {
    const answer = await call(port, appHost(), '/v1/apps/todo/backups');
    expect(answer.status).toBe(403);
  });
});
