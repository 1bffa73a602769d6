import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/functions/free-port.ts';

const run = promisify(execFile);

/** A throwaway PostgreSQL server on a loopback port, and how to stop it. */
export interface PostgresCluster {
  readonly url: string;
  /** True when the server has pgvector (`CREATE EXTENSION vector` works). */
  readonly hasVector: boolean;
  stop(): Promise<void>;
}

/** The `bin` folder of the newest installed PostgreSQL (Debian layout), if any. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/**
 * Starts a PostgreSQL cluster in a temp folder (initdb, trust authentication, loopback only,
 * socket in the folder), run as the `postgres` user because initdb refuses root. `undefined`
 * when PostgreSQL is not installed (scripts/setup-system.sh installs it).
 */
export async function startPostgres(): Promise<PostgresCluster | undefined> {
  const bin = postgresBin();
  if (bin === undefined) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'search-pg-'));
  const data = join(dir, 'data');
  const asPostgres = (command: string, args: string[]) =>
    process.getuid?.() === 0
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  try {
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
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
    const port = await freePort();
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=20`;
    await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const { stdout } = await run(join(bin, 'psql'), [
      url,
      '-Atc',
      `select count(*) from pg_available_extensions where name = 'vector'`,
    ]);
    return {
      url,
      hasVector: stdout.trim() === '1',
      stop: async () => {
        await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
