import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PlatformError } from '@platform/errors';

/** The PostgreSQL client programs a backup runs. */
export type PostgresTool = 'pg_dump' | 'pg_restore';

/**
 * The path of `tool`: in `PLATFORM_PG_BIN` when set, else in the newest PostgreSQL installed in
 * Debian's layout (`/usr/lib/postgresql/<major>/bin`, where `postgresql-client` puts it; the
 * newest, because `pg_dump` refuses a server newer than itself), else the name alone, found on
 * `PATH`.
 */
export function postgresTool(tool: PostgresTool, env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.PLATFORM_PG_BIN;
  if (configured) return join(configured, tool);
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', tool)))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin', tool);
  }
  return tool;
}

/**
 * libpq's environment for the database `url` names (`PGHOST`, `PGPORT`, `PGUSER`,
 * `PGPASSWORD`, `PGDATABASE`, `PGSSLMODE`): the password travels in the child's environment,
 * never on its command line, where any user of the machine could read it.
 */
export function libpqEnv(url: string): Record<string, string> {
  const parsed = new URL(url);
  const env: Record<string, string> = {};
  const host = parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname);
  if (host) env.PGHOST = host;
  if (parsed.port) env.PGPORT = parsed.port;
  if (parsed.username) env.PGUSER = decodeURIComponent(parsed.username);
  if (parsed.password) env.PGPASSWORD = decodeURIComponent(parsed.password);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database) env.PGDATABASE = database;
  const sslmode = parsed.searchParams.get('sslmode');
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

/**
 * Runs `tool` with `args` against the database `url` names and resolves once it exits with 0.
 * Anything else throws `INTERNAL` with the end of its error output (libpq never prints the
 * password).
 */
export function runPostgresTool(
  tool: PostgresTool,
  url: string,
  args: readonly string[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(postgresTool(tool), [...args], {
      env: { ...process.env, ...libpqEnv(url) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('error', (error) =>
      reject(
        new PlatformError({
          code: 'INTERNAL',
          message: `${tool} could not be started (${(error as NodeJS.ErrnoException).code ?? 'error'}): install PostgreSQL's client programs or set PLATFORM_PG_BIN.`,
          cause: error,
        }),
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new PlatformError({
            code: 'INTERNAL',
            message: `${tool} failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`,
          }),
        );
    });
  });
}
