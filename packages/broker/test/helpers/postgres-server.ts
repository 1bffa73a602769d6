import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/functions/free-port.ts';
import { tempDir } from './temp-dir.ts';

const BIN = '/usr/lib/postgresql/15/bin';

/** A throwaway PostgreSQL server can run here (the binaries exist and we may switch to `postgres`). */
export const canRunPostgres =
  existsSync(join(BIN, 'initdb')) && process.getuid?.() === 0 && existsSync('/usr/sbin/runuser');

/**
 * Starts a throwaway PostgreSQL 15 cluster (as the `postgres` system user, trust auth, on a free
 * loopback port) and returns its URL and a stop function that removes everything.
 */
export async function startPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = await tempDir('broker-pg-');
  chmodSync(dir.path, 0o777);
  const data = join(dir.path, 'data');
  execFileSync(
    'runuser',
    ['-u', 'postgres', '--', join(BIN, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres'],
    {
      stdio: 'ignore',
    },
  );
  const port = await freePort();
  const server: ChildProcess = spawn(
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      join(BIN, 'postgres'),
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir.path,
      '-c',
      'listen_addresses=127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error('PostgreSQL did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    stop: async () => {
      const exited = new Promise<void>((resolve) => {
        if (server.exitCode !== null) resolve();
        else server.once('exit', () => resolve());
      });
      // Ask PostgreSQL itself (runuser does not forward signals to it).
      execFileSync(
        'runuser',
        ['-u', 'postgres', '--', join(BIN, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop'],
        {
          stdio: 'ignore',
        },
      );
      await exited;
      await dir.remove();
    },
  };
}
