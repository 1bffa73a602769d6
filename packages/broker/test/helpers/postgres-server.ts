import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureDatabase } from '../../src/db/database-per-app.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { PrivateCluster } from '../../src/db/private-cluster.ts';

const run = promisify(execFile);

/** A throwaway PostgreSQL server, reached over a Unix socket in its own folder. */
export interface PostgresServer {
  readonly url: string;
  /** True when the server has pgvector (`CREATE EXTENSION vector` works). */
  readonly hasVector: boolean;
  /**
   * Creates an empty database `name` on the server and resolves to its URL, for a test that
   * needs a database no other test has touched.
   */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: open connections are ended), waits `downMs`, starts it. */
  restart?(downMs?: number): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** The `bin` folder of the newest installed PostgreSQL (Debian layout), if any. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/**
 * The same server as `platform dev --database cluster` runs (`PLATFORM_TEST_POSTGRES=cluster`),
 * so every test on PostgreSQL can run on the private cluster too: its template is kept beside
 * the tests' PGlite snapshot.
 */
export async function startPrivateCluster(): Promise<PostgresServer> {
  const dir = await mkdtemp(join(tmpdir(), 'broker-cluster-'));
  const cacheDir = join(
    fileURLToPath(new URL('../../../../', import.meta.url)),
    'node_modules/.cache/platform-broker',
  );
  const cluster = await PrivateCluster.start({ dir: join(dir, 'cluster'), cacheDir });
  const db = await PostgresDatabase.connect(cluster.url, 1);
  const { rows } = await db.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  await db.close();
  return {
    url: cluster.url,
    hasVector: rows.length === 1,
    createDatabase: (name) => ensureDatabase(cluster.url, name),
    stop: async () => {
      await cluster.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a PostgreSQL cluster in a temp folder (initdb, trust authentication), run as the
 * `postgres` user when we are root because initdb refuses root. It listens on a Unix socket in
 * that folder and on no TCP port, so parallel suites never race for a port or reach each
 * other's server. Throws when PostgreSQL is not installed (`npm test` installs it through
 * scripts/setup-system.sh).
 */
export async function startPostgres(
  options: {
    /**
     * Server settings as `name=value`, passed as `-c name=value` at start (a benchmark's
     * `shared_preload_libraries=pg_stat_statements`). Not applied to the private cluster.
     */
    readonly settings?: readonly string[];
  } = {},
): Promise<PostgresServer> {
  if (process.env.PLATFORM_TEST_POSTGRES === 'cluster') return startPrivateCluster();
  const bin = postgresBin();
  if (bin === undefined)
    throw new Error('PostgreSQL is not installed: run scripts/setup-system.sh (npm test does).');
  const dir = await mkdtemp(join(tmpdir(), 'broker-pg-'));
  const data = join(dir, 'data');
  const root = process.getuid?.() === 0;
  const asPostgres = (command: string, args: string[]) =>
    root
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  const stopServer = () =>
    asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
  try {
    if (root) {
      const { stdout: uid } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(uid.trim()), Number(gid.trim()));
    }
    await asPostgres('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    const settings = (options.settings ?? []).map((one) => ` -c ${one}`).join('');
    const serverOptions = `-k ${dir} -c listen_addresses= -c fsync=off${settings}`;
    const startServer = () =>
      asPostgres('pg_ctl', [
        '-D',
        data,
        '-o',
        serverOptions,
        '-l',
        join(dir, 'log'),
        '-w',
        'start',
      ]);
    await startServer();
    const urlOf = (database: string) =>
      `postgres://postgres@localhost/${database}?host=${encodeURIComponent(dir)}`;
    const psql = (sql: string) =>
      run(join(bin, 'psql'), ['-h', dir, '-U', 'postgres', '-Atc', sql]);
    const { stdout } = await psql(
      `select count(*) from pg_available_extensions where name = 'vector'`,
    );
    return {
      url: urlOf('postgres'),
      hasVector: stdout.trim() === '1',
      createDatabase: async (name) => {
        if (!/^[a-z_][a-z0-9_]*$/.test(name))
          throw new TypeError(`Not a plain database name: ${name}`);
        await psql(`create database ${name}`);
        return urlOf(name);
      },
      stop: async () => {
        await stopServer();
        await rm(dir, { recursive: true, force: true });
      },
      restart: async (downMs = 0) => {
        await asPostgres('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        await startServer();
      },
    };
  } catch (error) {
    await stopServer();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
