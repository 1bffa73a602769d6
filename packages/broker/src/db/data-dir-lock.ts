import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isProcessRunning, machineBootedAt, sameBoot } from '../kernel/process-mark.ts';

/** What the lock file of a data directory says about the broker holding it. */
export interface LockHolder {
  /** The holding broker's process id. */
  readonly pid: number;
  /** Its URL once it listens; absent while it is still starting. */
  readonly url?: string;
  /** When the machine booted, as the holder saw it (ms since the epoch); tells a lock from before a reboot. */
  readonly bootedAt: number;
  /** Tells this holder's file from any other, so a release never removes someone else's lock. */
  readonly token: string;
}

/** Another live broker holds the data directory: nothing was opened. */
export class DataDirLockedError extends Error {
  readonly holder: LockHolder;
  constructor(holder: LockHolder) {
    const where = holder.url
      ? `at ${holder.url} (process ${holder.pid})`
      : `(process ${holder.pid}, starting)`;
    super(
      `Another broker is already running for this app folder ${where}; stop it first, or use that one.`,
    );
    this.name = 'DataDirLockedError';
    this.holder = holder;
  }
}

// The locks this process holds, token to lock file: a lock file naming this process but none of
// these tokens is left over from an earlier start in this process that never released it.
const heldHere = new Map<string, string>();
let releasedOnExit = false;

/**
 * Removes, as the process exits, the lock files it still holds. A process that exits before its
 * databases closed (`platform dev` on a second Ctrl-C, or on Ctrl-C while a database is still
 * being created) would otherwise leave them behind; only synchronous work runs at exit.
 */
function releaseOnExit(): void {
  if (releasedOnExit) return;
  releasedOnExit = true;
  process.once('exit', () => {
    for (const [token, path] of heldHere) {
      try {
        if (parseHolder(readFileSync(path, 'utf8'))?.token === token) rmSync(path, { force: true });
      } catch {
        // Already gone, or unreadable: nothing of ours to remove.
      }
    }
  });
}

/**
 * An exclusive lock on an embedded database's data directory: the file `<dataDir>.lock`, created
 * atomically with the holder's pid and URL. Node has no portable OS-level file lock (`flock`
 * needs a native addon), so liveness is checked instead: a lock whose process is gone (killed,
 * even by SIGKILL) or that was written before the machine last booted (its pid may be reused) is
 * stale and taken over at once, without a timeout to wait out.
 *
 * @example
 * ```ts
 * const lock = await DataDirLock.acquire('.platform/db'); // throws DataDirLockedError
 * await lock.announce('http://localhost:4310');
 * await lock.release();
 * ```
 */
export class DataDirLock {
  readonly path: string;
  #holder: LockHolder;

  private constructor(path: string, holder: LockHolder) {
    this.path = path;
    this.#holder = holder;
  }

  /**
   * Takes the lock of `dataDir`, taking over a stale one. Throws
   * {@link DataDirLockedError} naming the live holder.
   */
  static async acquire(dataDir: string): Promise<DataDirLock> {
    const path = `${dataDir}.lock`;
    const holder: LockHolder = {
      pid: process.pid,
      bootedAt: machineBootedAt(),
      token: randomBytes(12).toString('base64url'),
    };
    const draft = `${path}.${holder.token}`;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(draft, JSON.stringify(holder), { mode: 0o600 });
    try {
      // A handful of rounds: each one either takes the lock, finds a live holder, or clears a
      // stale lock that another starter may take first.
      for (let round = 0; round < 5; round++) {
        try {
          // link() fails when the lock exists, and never shows a half-written file.
          await link(draft, path);
          heldHere.set(holder.token, path);
          releaseOnExit();
          return new DataDirLock(path, holder);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const text = await readFile(path, 'utf8').catch(() => undefined);
        if (text === undefined) continue;
        const current = parseHolder(text);
        if (current && isLive(current)) throw new DataDirLockedError(current);
        await removeStale(path, text);
      }
      throw new Error(`Could not take the lock ${path}: other brokers keep starting on it.`);
    } finally {
      await rm(draft, { force: true });
    }
  }

  /** Adds the holder's URL to the lock, for the message a second start shows. */
  async announce(url: string): Promise<void> {
    this.#holder = { ...this.#holder, url };
    const draft = `${this.path}.${this.#holder.token}`;
    await writeFile(draft, JSON.stringify(this.#holder), { mode: 0o600 });
    // Replaces the lock atomically; it is ours, so no other writer competes.
    await rename(draft, this.path);
  }

  /** Removes the lock if it is still this holder's. */
  async release(): Promise<void> {
    heldHere.delete(this.#holder.token);
    const text = await readFile(this.path, 'utf8').catch(() => undefined);
    if (text !== undefined && parseHolder(text)?.token === this.#holder.token) {
      await rm(this.path, { force: true });
    }
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.token !== 'string') return undefined;
    return { bootedAt: 0, ...value } as LockHolder;
  } catch {
    return undefined;
  }
}

function isLive(holder: LockHolder): boolean {
  if (!sameBoot(holder.bootedAt)) return false;
  if (holder.pid === process.pid) return heldHere.has(holder.token);
  return isProcessRunning(holder.pid);
}

/**
 * Removes a stale lock whose text was `stale`. It is first moved aside under a unique name, so
 * that when another starter replaced it meanwhile, that fresh lock is put back rather than lost.
 */
async function removeStale(path: string, stale: string): Promise<void> {
  const aside = `${path}.stale.${randomBytes(6).toString('base64url')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((await readFile(aside, 'utf8')) !== stale) {
    await link(aside, path).catch(() => undefined);
  }
  await rm(aside, { force: true });
}
