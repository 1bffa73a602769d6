import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DataDirLock } from './data-dir-lock.ts';
import {
  type Database,
  DatabaseError,
  type Queryable,
  type QueryResult,
  type Session,
  type Transaction,
} from './database.ts';
import { restrictToOwner } from './owner-only.ts';
import { pgliteModules } from './pglite-modules.ts';
import type {
  PgliteErrorData,
  PgliteOpenInfo,
  PgliteRequest,
  PgliteResponse,
  PgliteWorkerOptions,
} from './pglite-protocol.ts';
import { type Lane, SerialQueue } from './serial-queue.ts';

/** Where to keep the embedded database. */
export interface PgliteDatabaseOptions {
  /** Data directory (the app's `.platform/db`); omit for an in-memory database. */
  readonly dataDir?: string | undefined;
  /** Snapshot of a fresh cluster used to skip initdb; see {@link PgliteWorkerOptions}. */
  readonly snapshotPath?: string | undefined;
  /**
   * Load pgvector.
   * @default true
   */
  readonly vector?: boolean;
  /**
   * PostgreSQL's buffer cache (`shared_buffers`) in MB, a whole number from 1. PGlite allocates
   * and touches all of it at start, so it is resident memory from the first moment; the files
   * stay in the operating system's page cache either way.
   * @default 32
   */
  readonly bufferCacheMb?: number;
}

/**
 * Where a restore moves the data directory `dataDir` aside while it puts the restored one in
 * its place: `<dataDir>.replaced`.
 */
export const replacedDataDir = (dataDir: string): string => `${dataDir}.replaced`;

/**
 * Completes or undoes a replacement of the data directory that a crash interrupted, before the
 * database opens. A replacement renames the live directory to {@link replacedDataDir}, renames
 * the restored one into place, and then removes the replaced one. Stopped after the first
 * rename, the directory is missing: the replaced one, the database as it was, goes back. Stopped
 * after the second, the leftover replaced directory goes.
 */
export async function finishReplacement(dataDir: string): Promise<void> {
  const replaced = replacedDataDir(dataDir);
  if (!existsSync(replaced)) return;
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    await rm(replaced, { recursive: true, force: true });
  } else {
    await rm(dataDir, { recursive: true, force: true });
    await rename(replaced, dataDir);
  }
}

type Pending = { resolve: (result: QueryResult) => void; reject: (error: Error) => void };

/**
 * The buffer cache of an app's database. PostgreSQL's default, 128MB, is allocated and touched at
 * start, so each embedded database held about 150 MB resident before its first query. An app's
 * database on one machine needs far less, and the operating system's page cache still holds the
 * files.
 */
const DEFAULT_BUFFER_CACHE_MB = 32;

// Source runs as `.ts` (tests, tsx), the build as `.js` with the worker emitted beside index.js.
const workerUrl = new URL(
  import.meta.url.endsWith('.ts') ? './pglite-worker.ts' : './pglite-worker.js',
  import.meta.url,
);

function toError(data: PgliteErrorData): Error {
  if (data.code !== undefined && /^[0-9A-Z]{5}$/.test(data.code)) {
    return new DatabaseError(data.message, {
      sqlState: data.code,
      detail: data.detail,
      constraint: data.constraint,
      table: data.table,
      column: data.column,
    });
  }
  return new Error(data.message);
}

/** What runs in one lane of the queue: everything of a {@link Database} but its identity. */
type LaneStatements = Omit<Database, 'kind' | 'close'>;

/**
 * The embedded PostgreSQL, owned by a worker thread and reached by message passing. Every
 * statement and transaction is serialised through one queue, because PGlite is a single session.
 *
 * @example
 * ```ts
 * const db = await PgliteDatabase.open({ dataDir: '.platform/db' });
 * const { rows } = await db.query('select 1 as one');
 * await db.close();
 * ```
 */
export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  /** How the data directory was opened and how long it took. */
  readonly openInfo: PgliteOpenInfo;
  /** The lock on the data directory, held until {@link PgliteDatabase.close}; none in memory. */
  readonly lock: DataDirLock | undefined;
  #worker: Worker;
  #options: PgliteDatabaseOptions = {};
  /** The data directory, or `undefined` for a database in memory. */
  get dataDir(): string | undefined {
    return this.#options.dataDir;
  }

  /** Workers a {@link replace} stopped on purpose: their exit fails nothing. */
  readonly #retired = new WeakSet<Worker>();
  readonly #pending = new Map<number, Pending>();
  readonly #queue = new SerialQueue();
  #nextId = 1;
  #closed: Error | undefined;
  readonly #normal: LaneStatements;
  readonly #ahead: Database;
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();

  private constructor(worker: Worker, info: PgliteOpenInfo, lock: DataDirLock | undefined) {
    this.#worker = worker;
    this.openInfo = info;
    this.lock = lock;
    this.#normal = this.#in('normal');
    this.#ahead = { ...this.#in('ahead'), kind: this.kind, close: () => this.close() };
    this.#listen(worker);
  }

  #listen(worker: Worker): void {
    worker.on('message', (message: PgliteResponse) => this.#receive(message));
    worker.on('error', (error) => {
      if (!this.#retired.has(worker)) this.#fail(error);
    });
    worker.on('exit', () => {
      if (!this.#retired.has(worker)) this.#fail(new Error('The database worker stopped.'));
    });
  }

  /**
   * Locks the data directory (throws `DataDirLockedError` while another live broker holds it:
   * one PGlite per directory, or writes are lost), starts the worker, waits until the database
   * is open, and leaves the directory to its owner only (folders 0700, files 0600).
   */
  static async open(options: PgliteDatabaseOptions = {}): Promise<PgliteDatabase> {
    const lock =
      options.dataDir === undefined ? undefined : await DataDirLock.acquire(options.dataDir);
    try {
      if (options.dataDir !== undefined) await finishReplacement(options.dataDir);
      const db = await PgliteDatabase.#start(options, lock);
      // After the open: a restored snapshot and initdb have just written their files.
      if (options.dataDir !== undefined) {
        await restrictToOwner(options.dataDir).catch(async (error) => {
          await db.close();
          throw error;
        });
      }
      return db;
    } catch (error) {
      await lock?.release();
      throw error;
    }
  }

  static async #start(
    options: PgliteDatabaseOptions,
    lock: DataDirLock | undefined,
  ): Promise<PgliteDatabase> {
    const bufferCacheMb = options.bufferCacheMb ?? DEFAULT_BUFFER_CACHE_MB;
    if (!Number.isInteger(bufferCacheMb) || bufferCacheMb < 1) {
      throw new RangeError(`bufferCacheMb must be a whole number from 1, not ${bufferCacheMb}.`);
    }
    const worker = await PgliteDatabase.#spawn({ ...options, bufferCacheMb });
    const db = new PgliteDatabase(worker.worker, worker.info, lock);
    db.#options = options;
    return db;
  }

  /** Starts a worker on `options` and resolves once its database is open. */
  static async #spawn(
    options: PgliteDatabaseOptions,
  ): Promise<{ worker: Worker; info: PgliteOpenInfo }> {
    const bufferCacheMb = options.bufferCacheMb ?? DEFAULT_BUFFER_CACHE_MB;
    const data: PgliteWorkerOptions = {
      dataDir: options.dataDir,
      snapshotPath: options.snapshotPath,
      vector: options.vector ?? true,
      bufferCacheMb,
      modules: await pgliteModules(),
    };
    const worker = new Worker(workerUrl, { workerData: data });
    return new Promise((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`The database worker exited (${code}).`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (message: PgliteResponse) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        if (message.type === 'ready') resolve({ worker, info: message.info });
        else {
          void worker.terminate();
          reject(
            message.type === 'failed'
              ? toError(message.error)
              : new Error('Unexpected worker message'),
          );
        }
      });
    });
  }

  query<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    return this.#normal.query(sql, params);
  }

  exec(sql: string): Promise<void> {
    return this.#normal.exec(sql);
  }

  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.#normal.transaction(fn);
  }

  session<T>(fn: (session: Session) => Promise<T>): Promise<T> {
    return this.#normal.session(fn);
  }

  exclusive<T>(key: string, fn: (queries: Queryable) => Promise<T>): Promise<T> {
    return this.#normal.exclusive(key, fn);
  }

  ahead(): Database {
    return this.#ahead;
  }

  /** The statements of one lane of the queue. */
  #in(lane: Lane): LaneStatements {
    const session: Session = {
      query: <Row>(sql: string, params: readonly unknown[] = []) =>
        this.#send<Row>({ id: 0, op: 'query', sql, params }),
      exec: async (sql: string) => {
        await this.#send({ id: 0, op: 'exec', sql });
      },
      transaction: (inner) => this.#transactionNow(inner),
    };
    return {
      query: (sql, params = []) => this.#queue.run(() => session.query(sql, params), lane),
      exec: (sql) => this.#queue.run(() => session.exec(sql), lane),
      transaction: (fn) => this.#queue.run(() => this.#transactionNow(fn), lane),
      // PGlite is one session already: hold the queue so nothing else interleaves.
      session: (fn) => this.#queue.run(() => fn(session), lane),
      exclusive: (_key, fn) => this.#queue.run(() => fn(session), lane),
      ahead: () => this.ahead(),
    };
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.#listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(channel, set);
      await this.#queue.run(() => this.#send({ id: 0, op: 'listen', channel }));
    }
    set.add(onNotify);
    // The session keeps listening (cheap); only this callback stops.
    return async () => {
      set.delete(onNotify);
    };
  }

  /**
   * Writes a snapshot of the database as it is now to `path` (atomically, so a broker reading it
   * meanwhile sees the old file or the new one), for {@link PgliteDatabaseOptions.snapshotPath}.
   */
  writeSnapshot(path: string): Promise<void> {
    return this.#queue.run(async () => {
      await this.#send({ id: 0, op: 'snapshot', path });
    });
  }

  /**
   * Writes a snapshot like {@link writeSnapshot}, after `before` ran on the session in the same
   * turn of the queue, so what `before` reads and writes is exactly what the snapshot holds (no
   * statement of anyone else runs between them). Resolves to what `before` returned.
   */
  snapshotAfter<T>(path: string, before: (session: Session) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      const session: Session = {
        query: <Row>(sql: string, params: readonly unknown[] = []) =>
          this.#send<Row>({ id: 0, op: 'query', sql, params }),
        exec: async (sql: string) => {
          await this.#send({ id: 0, op: 'exec', sql });
        },
        transaction: (inner) => this.#transactionNow(inner),
      };
      const result = await before(session);
      // A checkpoint first: the snapshot is a copy of the files, which a restore opens by
      // replaying the log after the last checkpoint, and replaying a sequence's log entry moves
      // it ahead by the values it had logged in advance.
      await this.#send({ id: 0, op: 'exec', sql: 'CHECKPOINT' });
      await this.#send({ id: 0, op: 'snapshot', path });
      return result;
    });
  }

  /**
   * Replaces the database in one turn of the queue: statements already queued run on the old
   * one, later ones wait and then run on the new one. The old worker closes (the data directory
   * is flushed), `between` runs (a restore puts another data directory in place of this one),
   * and a new worker opens the data directory, or for a database in memory loads the
   * `dumpDataDir` tarball `load`. The lock on the data directory stays held throughout. When the
   * new database cannot open, `between` is not undone: the error is thrown and the database is
   * closed.
   */
  replace(between: () => Promise<void>, load?: string): Promise<void> {
    return this.#queue.run(async () => {
      if (this.#closed) throw this.#closed;
      const old = this.#worker;
      this.#retired.add(old);
      await this.#send({ id: 0, op: 'close' }).catch(() => undefined);
      await old.terminate();
      try {
        await between();
        const options =
          this.#options.dataDir === undefined && load !== undefined
            ? { ...this.#options, snapshotPath: load }
            : this.#options;
        const next = await PgliteDatabase.#spawn(options);
        this.#worker = next.worker;
        this.#listen(next.worker);
      } catch (error) {
        this.#fail(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    // A worker that died on its own still leaves the lock to release.
    if (this.#closed) return this.lock?.release();
    await this.#queue.run(() => this.#send({ id: 0, op: 'close' })).catch(() => undefined);
    this.#fail(new Error('The database is closed.'));
    await this.#worker.terminate();
    await this.lock?.release();
  }

  /** A transaction, for a caller that already holds the queue. */
  async #transactionNow<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    let open = true;
    // A statement after the transaction ended would run outside it: refuse.
    const ended = () => Promise.reject(new Error('The transaction has already ended.'));
    const tx: Transaction = {
      query: <Row>(sql: string, params: readonly unknown[] = []) =>
        open ? this.#send<Row>({ id: 0, op: 'query', sql, params }) : ended(),
      exec: async (sql: string) => {
        if (!open) return ended();
        await this.#send({ id: 0, op: 'exec', sql });
      },
      // The queue already keeps every other statement out until this transaction ends.
      lock: async () => (open ? undefined : ended()),
    };
    await this.#send({ id: 0, op: 'exec', sql: 'BEGIN' });
    try {
      const result = await fn(tx);
      open = false;
      await this.#send({ id: 0, op: 'exec', sql: 'COMMIT' });
      return result;
    } catch (error) {
      open = false;
      await this.#send({ id: 0, op: 'exec', sql: 'ROLLBACK' }).catch(() => undefined);
      throw error;
    }
  }

  #send<Row>(request: PgliteRequest): Promise<QueryResult<Row>> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise<QueryResult<Row>>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (result: QueryResult) => void, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  #receive(message: PgliteResponse): void {
    if (message.type === 'notification') {
      for (const listener of this.#listeners.get(message.channel) ?? []) listener(message.payload);
      return;
    }
    if (message.type !== 'result' && message.type !== 'error') return;
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.type === 'result')
      pending.resolve({ rows: message.rows, rowCount: message.rowCount });
    else pending.reject(toError(message.error));
  }

  #fail(error: Error): void {
    this.#closed ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
