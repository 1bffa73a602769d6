// `platform dev` on its two database engines, alternated in one run (docs/dev-database.md): the
// private PostgreSQL cluster (`--database cluster`, ours) against PGlite (the baseline). For each
// round and engine, the todo example's start with an empty machine cache, in a new folder and
// again warm; the memory of the broker and all its children (PostgreSQL's processes included:
// the server is `platform dev`'s child) at ready, 5 s later and after the calls; a five-app
// workspace's memory; `functions.call` p50 with 1 caller and with 16; full-text search p50 (the
// example's `searchTodos` over 200 todos); jobs enqueue-to-start p50 (the jobs bench's workload
// with a Deno consumer, its app database on each engine). Medians over the rounds.
//
// Memory is given twice: the sum of resident sets (as the goals are written) and the sum of
// proportional set sizes (PSS), which counts a page shared by several processes once. Each
// PostgreSQL backend maps the shared buffers, so the resident sum counts them once per process.
//
// DEV_BENCH_DATABASE_ROUNDS=2, DEV_BENCH_DATABASE_CALLS=300 (per caller count and search).
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appDatabaseName, ensureDatabase } from '../../packages/broker/src/db/database-per-app.ts';
import { PrivateCluster } from '../../packages/broker/src/db/private-cluster.ts';
import { oursDeno } from '../jobs/jobs.ts';
import { median, type Row, row } from '../report.ts';
import { appWith, platformDev, type Started, stop, treePss, treeRss } from './dev.ts';

const ROUNDS = Number(process.env.DEV_BENCH_DATABASE_ROUNDS ?? 2);
const CALLS = Number(process.env.DEV_BENCH_DATABASE_CALLS ?? 300);
const SETTLE_MS = 5000;
const ENGINES = ['pglite', 'cluster'] as const;
type Engine = (typeof ENGINES)[number];
const USER = '6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f';

/** Calls Function `name` as the bench's user through the owner API (`platform invoke`). */
async function invoke(dev: Started, dir: string, name: string, input: unknown): Promise<number> {
  const state = JSON.parse(await readFile(join(dir, '.platform', 'dev.json'), 'utf8')) as {
    appId: string;
    token: string;
  };
  const started = performance.now();
  const response = await fetch(`${dev.url}/v1/apps/${state.appId}/invoke/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${state.token}` },
    body: JSON.stringify({ input, user: USER }),
  });
  if (!response.ok)
    throw new Error(`${name} answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
  return performance.now() - started;
}

async function publicCall(dev: Started): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${dev.url}/_platform/api/functions/publicStats`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (!response.ok) throw new Error(`publicStats answered ${response.status}`);
  await response.arrayBuffer();
  return performance.now() - started;
}

/** p50 of `CALLS` calls of `one`, made by `callers` callers at once. */
async function p50(callers: number, one: () => Promise<number>): Promise<number> {
  const took: number[] = [];
  const each = Math.ceil(CALLS / callers);
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = 0; i < each; i++) took.push(await one());
    }),
  );
  return median(took);
}

interface Figures {
  emptyCacheMs: number;
  newFolderMs: number;
  warmMs: number;
  readyRss: number;
  readyPss: number;
  settledRss: number;
  settledPss: number;
  calledRss: number;
  call1: number;
  call16: number;
  search: number;
  jobs: number;
  workspaceRss: number;
  workspacePss: number;
  oneAppRss: number;
}

async function example(): Promise<string> {
  const source = join(import.meta.dirname, '..', '..', 'examples', 'todo');
  const dir = await mkdtemp(join(tmpdir(), 'dev-db-bench-'));
  await cp(source, dir, { recursive: true, filter: (path) => !path.includes('.platform') });
  return dir;
}

async function measure(engine: Engine): Promise<Figures> {
  const args = ['--database', engine];
  const figures: Partial<Figures> = {};
  // An empty machine cache: PGlite makes its snapshots, the cluster its template.
  const cache = await mkdtemp(join(tmpdir(), 'dev-db-cache-'));
  const cold = await example();
  try {
    const first = await platformDev(cold, args, { PLATFORM_CACHE_DIR: cache });
    figures.emptyCacheMs = first.readyMs;
    await stop(first);
  } finally {
    await rm(cold, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
  const dir = await example();
  try {
    const fresh = await platformDev(dir, args);
    figures.newFolderMs = fresh.readyMs;
    const pid = fresh.child.pid as number;
    figures.readyRss = await treeRss(pid);
    figures.readyPss = await treePss(pid);
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    figures.settledRss = await treeRss(pid);
    figures.settledPss = await treePss(pid);
    await stop(fresh);
    const warm = await platformDev(dir, args);
    figures.warmMs = warm.readyMs;
    // Each Function's process starts on its first call: not part of the latencies.
    await publicCall(warm);
    figures.call1 = await p50(1, () => publicCall(warm));
    figures.call16 = await p50(16, () => publicCall(warm));
    for (let i = 0; i < 200; i++) {
      await invoke(warm, dir, 'createTodo', { title: `todo ${i} buy milk and bread`, notes: 'n' });
    }
    figures.search = await p50(1, () => invoke(warm, dir, 'searchTodos', { query: 'milk' }));
    figures.calledRss = await treeRss(warm.child.pid as number);
    await stop(warm);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // Jobs: the broker's engine with a real Deno consumer (the jobs bench's workload), its app
  // database on PGlite or on a private cluster.
  if (engine === 'pglite') figures.jobs = (await oursDeno('')).p50;
  else {
    const folder = await mkdtemp(join(tmpdir(), 'dev-db-jobs-'));
    const cluster = await PrivateCluster.start({ dir: join(folder, '.platform', 'cluster') });
    try {
      figures.jobs = (
        await oursDeno(await ensureDatabase(cluster.url, appDatabaseName('bench')))
      ).p50;
    } finally {
      await cluster.close();
      await rm(folder, { recursive: true, force: true });
    }
  }
  // Five one-Function apps as one workspace, against one such app alone.
  const apps = await Promise.all(Array.from({ length: 5 }, () => appWith(1)));
  const parent = await mkdtemp(join(tmpdir(), 'dev-db-ws-'));
  try {
    const one = await platformDev(apps[0] as string, args);
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    figures.oneAppRss = await treeRss(one.child.pid as number);
    await stop(one);
    const names: string[] = [];
    for (const [i, app] of apps.entries()) {
      await cp(app, join(parent, `app${i}`), { recursive: true });
      names.push(`app${i}`);
    }
    await writeFile(
      join(parent, 'platform-workspace.yaml'),
      `organisation: bench\napps:\n${names.map((name) => `  - ${name}\n`).join('')}`,
    );
    const ws = await platformDev(
      undefined,
      [...args, '--workspace', parent],
      {},
      /^Organisation: (http:\/\/[^/]+)/,
    );
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    figures.workspaceRss = await treeRss(ws.child.pid as number);
    figures.workspacePss = await treePss(ws.child.pid as number);
    await stop(ws);
  } finally {
    await rm(parent, { recursive: true, force: true });
    await Promise.all(apps.map((app) => rm(app, { recursive: true, force: true })));
  }
  return figures as Figures;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => `${value.toFixed(value < 100 ? 1 : 0)} ms`;

/** The rows: the cluster's median against PGlite's, alternated rounds. */
export async function databaseRows(): Promise<Row[]> {
  const runs: Record<Engine, Figures[]> = { pglite: [], cluster: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated: each engine goes first in every other round.
    const order = round % 2 === 0 ? ENGINES : [...ENGINES].reverse();
    for (const engine of order) runs[engine].push(await measure(engine));
  }
  const of = (engine: Engine, key: keyof Figures) => median(runs[engine].map((f) => f[key]));
  const compare = (name: string, key: keyof Figures, format: (n: number) => string) =>
    row(
      `dev database: ${name} (cluster vs PGlite)`,
      format(of('cluster', key)),
      format(of('pglite', key)),
      of('cluster', key) / of('pglite', key),
    );
  const furtherApp = (engine: Engine) => (of(engine, 'workspaceRss') - of(engine, 'oneAppRss')) / 4;
  return [
    compare('ready, todo example, empty machine cache', 'emptyCacheMs', ms),
    compare('ready, todo example, new folder', 'newFolderMs', ms),
    compare('ready, todo example, warm folder', 'warmMs', ms),
    compare('memory at ready, resident sum', 'readyRss', mb),
    compare('memory at ready, PSS', 'readyPss', mb),
    compare(`memory ${SETTLE_MS / 1000} s after ready, resident sum`, 'settledRss', mb),
    compare(`memory ${SETTLE_MS / 1000} s after ready, PSS`, 'settledPss', mb),
    compare('memory after the calls and searches (warm), resident sum', 'calledRss', mb),
    compare('memory, five-app workspace, resident sum', 'workspaceRss', mb),
    compare('memory, five-app workspace, PSS', 'workspacePss', mb),
    row(
      'dev database: each further app of a workspace, resident (cluster vs PGlite)',
      mb(furtherApp('cluster')),
      mb(furtherApp('pglite')),
      furtherApp('cluster') / furtherApp('pglite'),
      { text: '< 30 MB', met: furtherApp('cluster') < 30 * 1024 * 1024 },
    ),
    compare('functions.call p50, 1 caller', 'call1', ms),
    compare('functions.call p50, 16 callers', 'call16', ms),
    compare('full-text search p50 (200 todos)', 'search', ms),
    compare('jobs enqueue-to-start p50 (Deno consumer, 8 producers)', 'jobs', ms),
  ];
}
