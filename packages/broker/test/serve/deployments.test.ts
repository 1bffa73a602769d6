// Deployments to `platform serve` as a person makes them: the service in its own process on a
// real PostgreSQL, the CLI in its own process with its account credential in a real Secret
// Service (GNOME Keyring on a private D-Bus), the app answering at its Host-routed address.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupCatalog } from '../../src/backups/backup-catalog.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { FolderFileStore } from '../../src/files/folder-store.ts';
import { CredentialCipher } from '../../src/integrations/credential-cipher.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { createServiceLogger } from '../../src/observability/logger.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { AppSecrets } from '../../src/serve/app-secrets.ts';
import { DeployedApps } from '../../src/serve/deployed-apps.ts';
import { ownerAccess } from '../../src/serve/owner-access.ts';
import { pruneRevisions } from '../../src/serve/revision-folders.ts';
import type { ServeSettings } from '../../src/serve/serve-settings.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { processesWithArgument } from '../helpers/processes.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  type Answer,
  adaId,
  call,
  eventually,
  freePort,
  HELLO_MANIFEST,
  issueAccountCredential,
  keepCredential,
  cli as platformCli,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  withCentral,
} from './serve-harness.ts';

const manifest = HELLO_MANIFEST;

const helloSource = (version: string) => `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async ({ data }) => {
    const notes = await data.table<{ id: number; text: string }>('notes').list({ limit: 10 });
    return { version: '${version}', notes: notes.map((note) => note.text).sort() };
  },
});
`;

const firstMigration = `create table notes (
  id integer primary key,
  text text not null
);
alter table notes enable row level security;
create policy notes_read on notes for select using (true);
insert into notes (id, text) values (1, 'first');
`;

/** The Deno processes running a revision's Function `name`. */
const functionProcesses = (filesDir: string, deployment: string, name: string) =>
  processesWithArgument(
    join(filesDir, '_deployments', 'todo', deployment, 'functions', `${name}.js`),
  );

/** The Function's result in a route's answer. */
const result = (answer: Answer): unknown => (JSON.parse(answer.body) as { result: unknown }).result;

describe('deployments to platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let port: number;
  let base: string;
  let appDir: string;
  let eveToken: string;
  let serviceOut = '';

  /** The CLI in its own process, with only the private Secret Service's environment. */
  const cli = (args: string[]) => platformCli(secrets.env, args);

  const callHello = () => call(port, `todo.localhost:${port}`, '/api/hello');
  const deploy = () => cli(['deploy', appDir, '--to', base, '--app', 'todo']);

  beforeAll(async () => {
    [postgres, secrets, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('deployments-'),
    ]);
    port = await freePort();
    base = `http://localhost:${port}`;
    appDir = join(dir.path, 'todo');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'functions/hello/index.ts': helloSource('one'),
      'migrations/001_notes.sql': firstMigration,
      'public/index.html': '<h1>Notes</h1>',
    });
    service = startService(serveEnv(postgres.url, base, port, dir.path));
    service.stdout?.on('data', (chunk: Buffer) => {
      serviceOut += chunk.toString('utf8');
    });
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
    // The credential platform login would keep, in the Secret Service under the account the CLI
    // reads; and one of a member who is neither an administrator nor the app's owner or editor.
    const token = await withCentral(postgres.url, async (central) => {
      // Eve is a member: the administrator invited her before her account was made.
      await new Memberships(central).invite(await adaId(central), 'eve@example.com');
      const eve = await central.query<{ id: string }>(
        `INSERT INTO platform.accounts (id, email, state, created_at)
         VALUES (gen_random_uuid(), 'eve@example.com', 'confirmed', now()) RETURNING id::text`,
      );
      eveToken = await issueAccountCredential(central, eve.rows[0]?.id as string, 'eve CLI');
      return issueAccountCredential(central, await adaId(central), 'test CLI');
    });
    expect(await keepCredential(secrets.env, dir.path, base, token)).toBe(0);
  }, 80_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  let first: string;

  it('deploys an app and serves its Function and public/ at its Host-routed address', async () => {
    expect((await callHello()).status).toBe(404);
    const deployed = await deploy();
    expect(deployed.err).toBe('');
    expect(deployed.code).toBe(0);
    first = /Deployed (dep_\S+) of todo/.exec(deployed.out)?.[1] as string;
    expect(first).toBeDefined();
    const answer = await callHello();
    expect(answer.status).toBe(200);
    expect(result(answer)).toEqual({ version: 'one', notes: ['first'] });
    const page = await call(port, `todo.localhost:${port}`, '/');
    expect(page.body).toContain('<h1>Notes</h1>');
    // Never another app's answer.
    expect((await call(port, `crm.localhost:${port}`, '/api/hello')).status).toBe(404);
  }, 60_000);

  it('refuses a deploy by a member who is not an administrator, owner or editor', async () => {
    const archive = await fetch(`${base}/v1/apps/todo/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${eveToken}`, 'content-type': 'application/gzip' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(archive.status).toBe(403);
    expect((await archive.json()).error.code).toBe('PERMISSION_DENIED');
    const created = await fetch(`${base}/v1/apps/notes/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${eveToken}` },
      body: new Uint8Array([1]),
    });
    expect((await created.json()).error).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: expect.stringContaining('only an organisation administrator creates an app'),
    });
    const anonymous = await fetch(`${base}/v1/apps/todo/deployments`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect((await callHello()).status).toBe(200);
  });

  let second: string;

  it('activates a second deployment with a new migration', async () => {
    await writeFiles(appDir, {
      'functions/hello/index.ts': helloSource('two'),
      'migrations/002_more.sql': "insert into notes (id, text) values (2, 'second');\n",
    });
    const deployed = await deploy();
    expect(deployed.code).toBe(0);
    second = /Deployed (dep_\S+) of todo/.exec(deployed.out)?.[1] as string;
    expect(second).not.toBe(first);
    const filesDir = join(dir.path, 'files');
    // Started before the switch, not on the first call; the old revision's drained and stopped.
    expect(functionProcesses(filesDir, second, 'hello')).toHaveLength(1);
    expect(
      await eventually(() => functionProcesses(filesDir, first, 'hello').length === 0, 10_000, 100),
    ).toBe(true);
    expect(result(await callHello())).toEqual({
      version: 'two',
      notes: ['first', 'second'],
    });
    // Its new migration ran after a backup of the app's data, kept beside the app's files.
    const backups = await new BackupCatalog(
      new FolderFileStore(join(filesDir, 'files', 'todo')),
    ).list();
    expect(backups.map((b) => b.kind)).toEqual(['deployment']);
  }, 60_000);

  it('refuses a deployment whose migration fails, naming file and line, and changes nothing', async () => {
    await writeFiles(appDir, {
      'functions/hello/index.ts': helloSource('three'),
      'migrations/003_ok.sql': "insert into notes (id, text) values (3, 'third');\n",
      'migrations/004_bad.sql': '-- a mistake on line 3\n\nselect * from no_such_table;\n',
    });
    const deployed = await deploy();
    expect(deployed.code).toBe(1);
    expect(deployed.err).toContain('Migration 004_bad.sql:3 failed');
    expect(deployed.err).toContain('no_such_table');
    expect(deployed.err).toContain('"file":"migrations/004_bad.sql"');
    // The earlier file of the same deployment was rolled back with it; the old code serves.
    expect(result(await callHello())).toEqual({
      version: 'two',
      notes: ['first', 'second'],
    });
    const client = new pg.Client({
      connectionString: postgres.url.replace('/postgres?', '/platform_app_todo?'),
    });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT name FROM platform.migrations ORDER BY name');
      expect(rows.map((row) => row.name)).toEqual(['001_notes.sql', '002_more.sql']);
    } finally {
      await client.end();
    }
    const listed = await cli(['deployments', 'list', '--to', base, '--app', 'todo']);
    expect(listed.code).toBe(0);
    expect(listed.out.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^\\* ${second} `)),
      expect.stringMatching(new RegExp(`^  ${first} `)),
    ]);
  }, 60_000);

  it('rolls back to the earlier revision: its code serves, the data stays migrated', async () => {
    const rolled = await cli(['rollback', first, '--to', base, '--app', 'todo']);
    expect(rolled.err).toBe('');
    expect(rolled.code).toBe(0);
    expect(rolled.out).toContain('forward-only');
    expect(result(await callHello())).toEqual({
      version: 'one',
      notes: ['first', 'second'],
    });
    const unknown = await cli(['rollback', 'dep_nothing', '--to', base, '--app', 'todo']);
    expect(unknown.code).toBe(1);
    expect(result(await callHello())).toMatchObject({ version: 'one' });
  }, 60_000);

  it('activates a revision with a new migration under 50 concurrent callers: none fails, each answer from one revision', async () => {
    await rm(join(appDir, 'migrations/004_bad.sql'));
    await writeFiles(appDir, {
      'functions/hello/index.ts': helloSource('four'),
      'migrations/004_good.sql': "insert into notes (id, text) values (4, 'fourth');\n",
    });
    const seen: string[][] = Array.from({ length: 50 }, () => []);
    const failures: string[] = [];
    let stop = false;
    const caller = async (index: number) => {
      while (!stop) {
        try {
          const answer = await callHello();
          if (answer.status !== 200) {
            failures.push(`${answer.status} ${answer.body.slice(0, 200)}`);
            continue;
          }
          const { version } = result(answer) as { version: string };
          seen[index]?.push(version);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const callers = seen.map((_, index) => caller(index));
    // Calls on the old revision first, then the deploy under the load, then more (about 5 s).
    const began = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const deployed = await deploy();
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(1_000, 5_000 - (Date.now() - began))),
    );
    stop = true;
    await Promise.all(callers);
    expect(deployed.err).toBe('');
    expect(deployed.code).toBe(0);
    expect(failures).toEqual([]);
    const all = seen.flat();
    expect(new Set(all)).toEqual(new Set(['one', 'four']));
    // Each caller's answers switch once, from the old revision to the new, never back.
    for (const versions of seen) {
      const switched = versions.indexOf('four');
      expect(switched).toBeGreaterThan(0);
      expect(versions.slice(0, switched).every((version) => version === 'one')).toBe(true);
      expect(versions.slice(switched).every((version) => version === 'four')).toBe(true);
    }
    expect(result(await callHello())).toEqual({
      version: 'four',
      notes: ['first', 'fourth', 'second', 'third'],
    });
  }, 90_000);

  it('is ready once the active revisions run, and not ready while one that did not start is active', async () => {
    const ready = await call(port, `localhost:${port}`, '/_platform/readyz');
    expect(ready.status).toBe(200);
    // The same central store, with a files folder the revision cannot be unpacked into (a
    // plain file stands where the folder would be): the active revision cannot start.
    await writeFile(join(dir.path, 'no-files'), '');
    const central = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', '/platform_central?'),
      1,
    );
    const lines: string[] = [];
    const apps = new DeployedApps({
      settings: {
        databaseUrl: postgres.url,
        filesDir: join(dir.path, 'no-files'),
        baseUrl: base,
      } as ServeSettings,
      central,
      clock: systemClock,
      secrets: new AppSecrets({
        central,
        cipher: CredentialCipher.ephemeral(),
        clock: systemClock,
      }),
      access: ownerAccess({ central, clock: systemClock, baseDomain: 'localhost' }),
      logger: createServiceLogger({
        level: 'info',
        destination: { write: (line: string) => lines.push(line) },
      }),
    });
    try {
      const loading = apps.startActive();
      expect(apps.notReady()).toBe('active revisions loading');
      await loading;
      expect(apps.notReady()).toMatch(/^revision dep_\S+ of todo did not start$/);
      expect(lines.join('')).toContain('an active revision did not start');
    } finally {
      await apps.close();
      await central.close();
    }
  }, 30_000);

  it("keeps the app's state across revisions, beside them rather than in one", async () => {
    const filesDir = join(dir.path, 'files');
    const vapid = join(filesDir, '_app-state', 'todo', 'push', 'vapid.json');
    const before = await readFile(vapid, 'utf8');
    const again = await deploy();
    expect(again.err).toBe('');
    expect(again.code).toBe(0);
    expect(await readFile(vapid, 'utf8')).toBe(before);
    const revisions = join(filesDir, '_deployments', 'todo');
    for (const one of await readdir(revisions)) {
      if (!one.endsWith('.tar.gz'))
        expect(existsSync(join(revisions, one, '.platform'))).toBe(false);
    }
  }, 60_000);

  it('removes the revisions beyond the newest kept, never the active one', async () => {
    const filesDir = join(dir.path, 'files');
    const ids = async () =>
      withCentral(postgres.url, async (central) =>
        (
          await central.query<{ id: string }>(
            "SELECT id FROM platform.deployments WHERE app_id = 'todo' ORDER BY created_at DESC, id DESC",
          )
        ).rows.map((row) => row.id),
      );
    const all = await ids();
    expect(all.length).toBeGreaterThanOrEqual(4);
    const [newest, older] = all as [string, string];
    // An older revision active again, then everything but the newest one pruned.
    expect((await cli(['rollback', older, '--to', base, '--app', 'todo'])).code).toBe(0);
    const removed = await withCentral(postgres.url, (central) =>
      pruneRevisions({ central, filesDir, appId: 'todo', keep: 1, protect: [] }),
    );
    expect(removed.sort()).toEqual(all.filter((id) => id !== newest && id !== older).sort());
    expect((await ids()).sort()).toEqual([newest, older].sort());
    for (const id of removed) {
      expect(existsSync(join(filesDir, '_deployments', 'todo', id))).toBe(false);
      expect(existsSync(join(filesDir, '_deployments', 'todo', `${id}.tar.gz`))).toBe(false);
    }
    expect((await callHello()).status).toBe(200);
  }, 60_000);

  it("reports the apps' Function processes, job queues and pending deliveries as metrics", async () => {
    const url = /"metrics":"(http:[^"]+)"/.exec(serviceOut)?.[1] as string;
    expect(url).toBeDefined();
    const text = await (await fetch(url)).text();
    expect(text).toMatch(/^platform_function_processes\{app="todo"\} 1$/m);
    expect(text).toContain('# TYPE platform_job_queue_depth gauge');
    expect(text).toContain('# TYPE platform_event_deliveries_pending gauge');
  }, 30_000);
});
