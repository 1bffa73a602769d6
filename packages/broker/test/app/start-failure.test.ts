// A start that fails at any step closes everything it opened before rethrowing: afterwards no
// database is open (PGlite runs in a worker thread of this process; PostgreSQL is asked for its
// connections), no Deno process of ours runs, and the port can be listened on again.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { SearchDeclaration } from '@platform/schema/manifest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrokerOptions,
  openAppDatabase,
  startBroker,
  startBrokerWith,
} from '../../src/app/start-broker.ts';
import { type DevOptions, startDev } from '../../src/app/start-dev.ts';
import { isPortFree } from '../../src/cli/port.ts';
import { freePort } from '../../src/functions/free-port.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { eventually } from '../e2e/fixture-app.ts';
import { headerAuthenticate, writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { processesOf, workerThreads } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

/** A fresh app folder holding `files`. */
async function appWith(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('start-failure-');
  removals.push(dir.remove);
  await writeFiles(dir.path, files);
  return dir.path;
}

/** A time source that is gone (sign-in and jobs read it while they start). */
const brokenClock: Clock = {
  now: () => {
    throw new Error('the clock is unavailable');
  },
};

const denoChildren = () => processesOf(process.pid, 'deno');

/**
 * Runs a start that must fail with `error`, then checks nothing it opened is left: the database
 * worker threads are as many as before, no Deno child process appeared (also not `settleMs`
 * later, for Functions that were still starting when the start failed), and `port` is free.
 */
async function expectCleanFailure(
  start: () => Promise<unknown>,
  error: RegExp,
  port: number,
  settleMs = 0,
): Promise<void> {
  const threads = workerThreads();
  const deno = new Set(denoChildren());
  await expect(start()).rejects.toThrow(error);
  const leftDeno = () => denoChildren().filter((pid) => !deno.has(pid));
  expect(leftDeno()).toEqual([]);
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  expect(leftDeno()).toEqual([]);
  // A terminated worker's thread may take a moment to leave the process's task list.
  await eventually(async () => expect(workerThreads()).toBe(threads), 3000);
  expect(await isPortFree(port)).toBe(true);
}

describe('a startBroker that fails', () => {
  const options = (appDir: string, port: number, extra: Partial<BrokerOptions> = {}) => ({
    appDir,
    port,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    logWriter: () => undefined,
    authenticate: headerAuthenticate,
    ...extra,
  });

  it('leaves nothing open when the database cannot be opened', async () => {
    const appDir = await appWith({ 'migrations/001_t.sql': 'create table t (id int);' });
    // `.platform/db` must be the database's folder: a file there cannot be opened.
    await mkdir(join(appDir, '.platform'), { recursive: true });
    await writeFile(join(appDir, '.platform', 'db'), 'not a database');
    const port = await freePort();
    await expectCleanFailure(() => startBroker(options(appDir, port)), /./, port);
  });

  it('closes the database when a migration fails', async () => {
    const appDir = await appWith({ 'migrations/001_bad.sql': 'create tabel oops (id int);' });
    const port = await freePort();
    await expectCleanFailure(() => startBroker(options(appDir, port)), /tabel/, port);
  });

  it('closes a database it was given when its start fails', async () => {
    const appDir = await appWith({ '.platform/secrets.json': '{ not json' });
    const port = await freePort();
    await expectCleanFailure(
      async () =>
        startBrokerWith(
          options(appDir, port),
          await openAppDatabase({ appDir, databaseUrl: '', snapshotPath: testSnapshotPath }),
        ),
      /not valid JSON/,
      port,
    );
  });

  it('closes the database and the port when the secrets file is not JSON', async () => {
    const appDir = await appWith({ '.platform/secrets.json': '{ not json' });
    const port = await freePort();
    await expectCleanFailure(() => startBroker(options(appDir, port)), /not valid JSON/, port);
  });

  it('closes the database and the port when sign-in cannot start', async () => {
    const appDir = await appWith({});
    const port = await freePort();
    await expectCleanFailure(
      () => startBroker(options(appDir, port, { auth: { clock: brokenClock } })),
      /clock is unavailable/,
      port,
    );
  });

  it('closes the database and the port when jobs cannot start', async () => {
    const appDir = await appWith({});
    const port = await freePort();
    await expectCleanFailure(
      () => startBroker(options(appDir, port, { jobs: { clock: brokenClock } })),
      /clock is unavailable/,
      port,
    );
  });

  it('stops jobs and closes the database when the search report cannot be written', async () => {
    const appDir = await appWith({});
    const port = await freePort();
    // The declared search's table does not exist: the start reports it, to a closed output.
    const logWriter = (line: string) => {
      if (line.startsWith('WARN')) throw new Error('the output is closed');
    };
    const searches: SearchDeclaration[] = [
      {
        name: 'notes',
        table: 'notes',
        select: ['id'],
        fullText: { columns: ['body'], language: 'simple' },
        filters: [],
      },
    ];
    await expectCleanFailure(
      () => startBroker(options(appDir, port, { logWriter, searches })),
      /output is closed/,
      port,
    );
  });

  it('stops everything when mounting the extra routes throws', async () => {
    const appDir = await appWith({});
    const port = await freePort();
    const mount = () => {
      throw new Error('the routes do not fit');
    };
    await expectCleanFailure(
      () => startBroker(options(appDir, port, { mount })),
      /routes do not fit/,
      port,
    );
  });

  it('stops everything when the port is taken', async () => {
    const appDir = await appWith({});
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    const threads = workerThreads();
    try {
      await expect(startBroker(options(appDir, port))).rejects.toThrow(/EADDRINUSE/);
      await eventually(async () => expect(workerThreads()).toBe(threads), 3000);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    expect(await isPortFree(port)).toBe(true);
  });
});

describe('a startBroker on PostgreSQL that fails', () => {
  let server: PostgresServer;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    // May log in, but not create roles or schemas: the bootstrap's first statement fails.
    await admin.query('CREATE ROLE limited LOGIN NOCREATEROLE');
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  const connections = async () =>
    Number(
      (
        await admin.query<{ count: string }>(
          `SELECT count(*) FROM pg_stat_activity WHERE usename = 'limited'`,
        )
      ).rows[0]?.count,
    );

  it('closes its connections when the bootstrap is refused', async () => {
    const appDir = await appWith({});
    const port = await freePort();
    await expectCleanFailure(
      () =>
        startBroker({
          appDir,
          port,
          sdkVersion: '2.6.0',
          databaseUrl: server.url.replace('postgres@', 'limited@'),
          logWriter: () => undefined,
        }),
      /permission denied/,
      port,
    );
    await eventually(async () => expect(await connections()).toBe(0), 3000);
  });
});

describe('a startDev that fails', () => {
  const manifest = (functions: string) => `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
${functions}`;
  const good = `import { defineFunction, s } from '@platform/server';
export default defineFunction({ input: s.object({}), handler: () => ({ ok: true }) });
`;
  const options = (appDir: string, port: number): DevOptions => ({
    appDir,
    port,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    authenticate: headerAuthenticate,
    logWriter: () => undefined,
  });

  it('leaves no Function process when one fails to bundle', async () => {
    const appDir = await appWith({
      'platform.yaml': manifest(`  - name: good
    entrypoint: functions/good.ts
    access: public
  - name: broken
    entrypoint: functions/broken.ts
    access: public
`),
      'functions/good.ts': good,
      'functions/broken.ts': 'export default defineFunction({',
    });
    const port = await freePort();
    await expectCleanFailure(() => startDev(options(appDir, port)), /broken/, port, 3000);
  });

  it('closes the app database it opened beside the central store when the store fails', async () => {
    const appDir = await appWith({ 'platform.yaml': manifest('  []') });
    // `.platform/central` must be the store's folder: a file there cannot be opened.
    await mkdir(join(appDir, '.platform'), { recursive: true });
    await writeFile(join(appDir, '.platform', 'central'), 'not a database');
    const port = await freePort();
    await expectCleanFailure(() => startDev(options(appDir, port)), /./, port);
  });

  it('closes the central store when the app database fails beside it', async () => {
    const appDir = await appWith({
      'platform.yaml': manifest('  []'),
      'migrations/001_bad.sql': 'create tabel oops (id int);',
    });
    const port = await freePort();
    await expectCleanFailure(() => startDev(options(appDir, port)), /tabel/, port);
  });

  it('fails on the database while a Function that cannot be bundled is bundling beside it', async () => {
    const appDir = await appWith({
      'platform.yaml': manifest(`  - name: broken
    entrypoint: functions/broken.ts
    access: public
`),
      'functions/broken.ts': 'export default defineFunction({',
      'migrations/001_bad.sql': 'create tabel oops (id int);',
    });
    const port = await freePort();
    // The bundling failure comes first and is never heard: the start reports the database's.
    await expectCleanFailure(() => startDev(options(appDir, port)), /tabel/, port);
  });

  it('refuses an SDK pin the broker does not have, leaving nothing open', async () => {
    const appDir = await appWith({
      'platform.yaml': manifest('  []').replace('version: 2.6.0', 'version: 9.0.0'),
    });
    const port = await freePort();
    await expectCleanFailure(
      () => startDev(options(appDir, port)),
      /pins runtime SDK 9\.0\.0/,
      port,
    );
  });

  it('stops the broker and its Functions when the dev state cannot be written', async () => {
    const appDir = await appWith({
      'platform.yaml': manifest(`  - name: good
    entrypoint: functions/good.ts
    access: public
`),
      'functions/good.ts': good,
    });
    // `.platform/dev.json` must be a file: a folder of that name cannot be written.
    await mkdir(join(appDir, '.platform', 'dev.json'), { recursive: true });
    const port = await freePort();
    await expectCleanFailure(() => startDev(options(appDir, port)), /EISDIR/, port);
  });
});
