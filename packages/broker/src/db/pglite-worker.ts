/**
 * Worker-thread entry that owns the embedded PostgreSQL (PGlite). PGlite runs every statement
 * synchronously on the thread that owns it, so it must never live on the HTTP thread. This file
 * is loaded by `new Worker(...)` from `pglite-database.ts` and only speaks the messages of
 * `pglite-protocol.ts`. Kept free of broker imports so Node can run it from source or `dist`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions, types } from '@electric-sql/pglite';
import type {
  PgliteErrorData,
  PgliteOpenInfo,
  PgliteRequest,
  PgliteResponse,
  PgliteWorkerOptions,
} from './pglite-protocol.ts';
import { PreparedStatements } from './prepared-statements.ts';

const port = parentPort;
if (!port) throw new Error('pglite-worker.ts must run in a worker thread');
const options = workerData as PgliteWorkerOptions;

function send(message: PgliteResponse): void {
  port?.postMessage(message);
}

function toErrorData(error: unknown): PgliteErrorData {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const e = error as Record<string, unknown>;
  const text = (key: string): string | undefined =>
    typeof e[key] === 'string' ? (e[key] as string) : undefined;
  return {
    message: text('message') ?? 'PGlite failed',
    code: text('code'),
    detail: text('detail'),
    constraint: text('constraint'),
    table: text('table'),
    column: text('column'),
  };
}

// bigint columns (count(*), bigserial ids) come back as numbers when they are safe integers, so
// rows stay JSON; larger values keep their exact text.
const parseInt8 = (value: string): number | string => {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
};

async function open(): Promise<{ db: PGlite; info: PgliteOpenInfo }> {
  const started = performance.now();
  const extensions: NonNullable<PGliteOptions['extensions']> = {};
  if (options.vector) {
    const { vector } = await import('@electric-sql/pglite-pgvector');
    extensions.vector = vector;
  }
  const base: PGliteOptions = {
    extensions,
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.bufferCacheMb}MB`],
    parsers: { [types.INT8]: parseInt8 },
    pgliteWasmModule: options.modules.pglite,
    initdbWasmModule: options.modules.initdb,
  };
  const dir = options.dataDir;
  const exists = dir !== undefined && existsSync(join(dir, 'PG_VERSION'));
  const snapshot = options.snapshotPath;
  let how: PgliteOpenInfo['how'] = 'opened';
  let db: PGlite;
  if (!exists && snapshot !== undefined && existsSync(snapshot)) {
    how = 'snapshot';
    if (dir === undefined) {
      const blob = new Blob([await readFile(snapshot)]);
      db = await PGlite.create({ ...base, loadDataDir: blob });
    } else {
      await unpackSnapshot(snapshot, dir);
      db = await PGlite.create({ ...base, dataDir: dir });
    }
  } else {
    if (!exists) how = 'initdb';
    if (dir !== undefined) await mkdir(dir, { recursive: true });
    db = await PGlite.create({ ...base, ...(dir === undefined ? {} : { dataDir: dir }) });
    if (how === 'initdb') {
      await dropTemplateDatabases(db);
      if (snapshot !== undefined) await writeSnapshot(db, snapshot);
    }
  }
  return { db, info: { how, milliseconds: Math.round(performance.now() - started) } };
}

/**
 * Unpacks a snapshot into a new data directory on disk, 1 MB at a time, before PGlite opens it.
 * PGlite's own `loadDataDir` held the whole tarball in memory several times over while it wrote
 * the files through its file system layer, and the database's thread kept that memory for the
 * rest of its life: about 100 MB more for each new folder's database than for one opened later.
 * The files go to a sibling folder first and are renamed into place, so a start that fails
 * half-way never leaves a directory that looks like a cluster (`PG_VERSION`) but is not one.
 */
async function unpackSnapshot(snapshot: string, dir: string): Promise<void> {
  const present = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (present.length > 0) {
    throw new Error(
      `${dir} holds files but no database (it has no PG_VERSION). Move it aside to start with a new database.`,
    );
  }
  const { extract } = await import('tar');
  const unpacking = `${dir}.unpacking`;
  await rm(unpacking, { recursive: true, force: true });
  await mkdir(unpacking, { recursive: true, mode: 0o700 });
  // tar rejects a truncated archive and reports other damage as warnings; either fails the
  // start. The entries are absolute (`/PG_VERSION`): tar makes them relative to `cwd` and says so
  // in a note, which is no damage.
  const problems: string[] = [];
  try {
    // Synchronous, on this thread of its own: about five times faster than tar's asynchronous
    // mode, whose every file operation is a trip through libuv's pool shared with the broker.
    extract({
      file: snapshot,
      cwd: unpacking,
      sync: true,
      preserveOwner: false,
      umask: 0o077,
      maxReadSize: 1 << 20,
      onwarn: (code, message) => {
        if (code !== 'TAR_ENTRY_INFO') problems.push(`${code}: ${String(message)}`);
      },
    });
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  if (problems.length > 0) {
    await rm(unpacking, { recursive: true, force: true });
    throw new Error(
      `The database snapshot ${snapshot} is damaged (${problems[0]}). Delete it: the next start makes it again.`,
    );
  }
  // `dir` is empty or absent (checked above); rename cannot replace a directory that exists.
  await rm(dir, { recursive: true, force: true });
  await rename(unpacking, dir);
}

/**
 * initdb makes `template0` and `template1` beside `postgres`, the one database PGlite serves:
 * 600 of a new cluster's files and 14 of its MB, which every new data directory made from the
 * snapshot wrote again. They only serve `CREATE DATABASE`, which a single PGlite session cannot
 * use, so a new cluster drops them before anything is made from it.
 */
async function dropTemplateDatabases(db: PGlite): Promise<void> {
  for (const name of ['template0', 'template1']) {
    await db.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
    await db.exec(`DROP DATABASE ${name}`);
  }
  await db.exec('CHECKPOINT');
}

async function writeSnapshot(db: PGlite, path: string): Promise<void> {
  const blob = await db.dumpDataDir('none');
  await mkdir(dirname(path), { recursive: true });
  // Another broker may be writing the same snapshot: write aside, then rename atomically.
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, new Uint8Array(await blob.arrayBuffer()));
  await rename(temp, path);
}

/** What the broker's own transactions send; anything else through `exec` may change the schema. */
const TRANSACTION_CONTROL = /^(?:BEGIN|COMMIT|ROLLBACK)$/;

async function main(): Promise<void> {
  let opened: { db: PGlite; info: PgliteOpenInfo };
  try {
    opened = await open();
  } catch (error) {
    send({ type: 'failed', error: toErrorData(error) });
    return;
  }
  const { db } = opened;
  const statements = new PreparedStatements(db);
  send({ type: 'ready', info: opened.info });
  port?.on('message', async (request: PgliteRequest) => {
    try {
      if (request.op === 'query') {
        const result = await statements.query(request.sql, request.params);
        send({ type: 'result', id: request.id, ...result });
      } else if (request.op === 'exec') {
        if (!TRANSACTION_CONTROL.test(request.sql)) statements.forget();
        await db.exec(request.sql);
        send({ type: 'result', id: request.id, rows: [], rowCount: 0 });
      } else if (request.op === 'listen') {
        await db.listen(request.channel, (payload) =>
          send({ type: 'notification', channel: request.channel, payload }),
        );
        send({ type: 'result', id: request.id, rows: [], rowCount: 0 });
      } else if (request.op === 'snapshot') {
        await writeSnapshot(db, request.path);
        send({ type: 'result', id: request.id, rows: [], rowCount: 0 });
      } else {
        await db.close();
        send({ type: 'result', id: request.id, rows: [], rowCount: 0 });
        port?.close();
      }
    } catch (error) {
      send({ type: 'error', id: request.id, error: toErrorData(error) });
    }
  });
}

void main();
