// `platform dev` of the todo example (12 Functions) as a user runs it: the time from spawning it
// to its URL line in a new app folder and again in the same (warm) folder, and the memory of the
// running broker with all its children (the sum of their resident sets, read from /proc) once
// ready, five seconds later, and (warm) after 1,000 calls of the example's public Function. The
// same run's floor: a bare node:http server, its start to the same kind of line, and its own
// resident set. Then the scale: generated apps of 1, 10 and 50 one-line Functions, each started
// in a new folder, measured settled and again once every Function has been called (so each has
// its process), against the 1-Function app; and what each further Function adds.
//
// The first start on a new machine: the example in a new folder with an empty machine cache
// (`PLATFORM_CACHE_DIR` a new folder: no database snapshot, no compiled code of the CLI), against
// a new folder started right after on that now warm cache; the median of
// DEV_BENCH_FIRST_ROUNDS=2 rounds, each with a cache of its own. The row says whether the
// package's prepared snapshots were there (`npm run build` makes them in dist/snapshots).
//
// As a suite of bench/run.ts: `dev: () => import('./dev/dev.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/dev/dev.ts`.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median, numbersFromEnv, type Row, row } from '../report.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'examples', 'todo');
// The sources as `npm run example` runs them: Node strips the types itself.
const fromSource = ['--conditions=@platform/source'];
const CALLS = Number(process.env.DEV_BENCH_CALLS ?? 1000);
const SETTLE_MS = 5000;
const FIRST_ROUNDS = Number(process.env.DEV_BENCH_FIRST_ROUNDS ?? 2);
/** App sizes of the scale figures (`DEV_BENCH_SCALE=1,10,50`; empty skips them). */
const SCALE = numbersFromEnv('DEV_BENCH_SCALE', '1,10,50');

/** A process in its own group, known by the URL it printed. */
export interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly readyMs: number;
}

async function start(
  command: string,
  args: string[],
  pattern: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<Started> {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    const url = pattern.exec(line)?.[1];
    if (url) {
      // Keep reading, so a chatty process never blocks on a full pipe.
      child.stdout!.resume();
      return { child, url, readyMs: performance.now() - started };
    }
  }
  throw new Error(`${command} exited before printing its URL`);
}

export async function stop(started: Started): Promise<void> {
  const exited = new Promise((done) => started.child.once('exit', done));
  process.kill(-(started.child.pid as number), 'SIGTERM');
  await exited;
}

/** `pid` and every process below it (Linux /proc). */
async function processTree(pid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const close = stat.lastIndexOf(')');
    if (close < 0) continue;
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop() as number;
    tree.push(next);
    pending.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** The sum over `pid`'s process tree of one `kB` field of a /proc file, in bytes. */
async function treeSum(pid: number, file: string, field: RegExp): Promise<number> {
  let total = 0;
  for (const one of await processTree(pid)) {
    const text = await readFile(`/proc/${one}/${file}`, 'utf8').catch(() => '');
    total += Number(field.exec(text)?.[1] ?? 0) * 1024;
  }
  return total;
}

/** The resident memory of `pid` and every process below it, in bytes (Linux /proc). */
export const treeRss = (pid: number): Promise<number> =>
  treeSum(pid, 'status', /VmRSS:\s+(\d+) kB/);

/** The proportional set size of `pid` and every process below it, in bytes (Linux /proc). */
export const treePss = (pid: number): Promise<number> =>
  treeSum(pid, 'smaps_rollup', /^Pss:\s+(\d+) kB/m);

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

/**
 * `platform dev <dir> --port 0` with `args` (or, without `dir`, `platform dev` with `args`
 * alone), ready once it prints a line `pattern` matches (its first group is the URL).
 */
export const platformDev = (
  dir: string | undefined,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  pattern = /^(http:\/\/localhost:\d+)$/,
) =>
  start(
    process.execPath,
    [
      ...fromSource,
      join(root, 'packages/broker/src/bin.ts'),
      'dev',
      ...(dir === undefined ? [] : [dir]),
      '--port',
      '0',
      ...args,
    ],
    pattern,
    env,
  );

const floorServer = () =>
  start(
    process.execPath,
    [
      '-e',
      "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port) })",
    ],
    /^(http:\/\/127\.0\.0\.1:\d+)$/,
  );

/** An app folder with `count` public Functions, each a few lines of its own. */
export async function appWith(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `dev-bench-${count}-`));
  await mkdir(join(dir, 'functions'));
  const names = Array.from({ length: count }, (_, i) => `fn${i + 1}`);
  await writeFile(
    join(dir, 'platform.yaml'),
    `schemaVersion: 3\nruntime:\n  sdk:\n    version: 2.6.0\nvisibility: public\nfunctions:\n${names
      .map(
        (name) => `  - name: ${name}\n    entrypoint: functions/${name}.ts\n    access: public\n`,
      )
      .join('')}`,
  );
  for (const name of names) {
    await writeFile(
      join(dir, 'functions', `${name}.ts`),
      `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: () => ({ name: '${name}', at: Date.now() }),
});
`,
    );
  }
  return dir;
}

/** One app size's figures: ready in a new folder, settled memory, memory with every Function called. */
interface Scale {
  readonly count: number;
  readonly readyMs: number;
  readonly settledRss: number;
  readonly runningRss: number;
}

async function scale(count: number): Promise<Scale> {
  const dir = await appWith(count);
  try {
    const dev = await platformDev(dir);
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    const settledRss = await treeRss(dev.child.pid as number);
    // Every Function once, ten at a time: each then has its process.
    for (let first = 1; first <= count; first += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, count - first + 1) }, (_, i) =>
          call(dev.url, `fn${first + i}`),
        ),
      );
    }
    const runningRss = await treeRss(dev.child.pid as number);
    await stop(dev);
    return { count, readyMs: dev.readyMs, settledRss, runningRss };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function call(url: string, name: string): Promise<void> {
  const response = await fetch(`${url}/_platform/api/functions/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (!response.ok) throw new Error(`${name} answered ${response.status}`);
  await response.arrayBuffer();
}

/**
 * The scale figures: ready time and memory with 1, 10 and 50 Functions, each against the
 * 1-Function app of the same run, and what each further Function costs when idle and when its
 * process runs (goal: < 10 MB).
 */
async function scaleRows(): Promise<Row[]> {
  const sizes: Scale[] = [];
  for (const count of SCALE) sizes.push(await scale(count));
  const [one] = sizes as [Scale];
  const functions = (count: number) => (count === 1 ? '1 Function' : `${count} Functions`);
  const last = sizes[sizes.length - 1] as Scale;
  const perFunction = (bytes: number) => bytes / (last.count - one.count);
  const further = (name: string, bytes: number, of: number) =>
    row(name, mb(bytes), mb(of), bytes / of, {
      text: '< 10 MB',
      met: bytes < 10 * 1024 * 1024,
    });
  return [
    ...sizes.flatMap((size) => [
      row(
        `dev scale: ready, ${functions(size.count)}, new app folder`,
        ms(size.readyMs),
        ms(one.readyMs),
        size.readyMs / one.readyMs,
      ),
      row(
        `dev scale: memory ${SETTLE_MS / 1000} s after ready, ${functions(size.count)}`,
        mb(size.settledRss),
        mb(one.settledRss),
        size.settledRss / one.settledRss,
      ),
      row(
        `dev scale: memory with every Function called, ${functions(size.count)}`,
        mb(size.runningRss),
        mb(one.runningRss),
        size.runningRss / one.runningRss,
      ),
    ]),
    further(
      `dev scale: each further Function, idle (${one.count} to ${last.count})`,
      perFunction(last.settledRss - one.settledRss),
      one.settledRss,
    ),
    further(
      `dev scale: each further Function, called (${one.count} to ${last.count})`,
      perFunction(last.runningRss - one.runningRss),
      one.runningRss,
    ),
  ];
}

/**
 * The example's first start on an empty machine cache against a new folder on the warm cache,
 * each round with a new cache folder and new app folders; goal: within 2x.
 */
async function firstStartRow(): Promise<Row> {
  const empty: number[] = [];
  const warm: number[] = [];
  for (let round = 0; round < FIRST_ROUNDS; round += 1) {
    const cache = await mkdtemp(join(tmpdir(), 'dev-bench-cache-'));
    const folders: string[] = [];
    try {
      const newFolder = async () => {
        const dir = await mkdtemp(join(tmpdir(), 'dev-bench-first-'));
        folders.push(dir);
        await cp(example, dir, { recursive: true, filter: (path) => !path.includes('.platform') });
        return dir;
      };
      for (const into of [empty, warm]) {
        const dev = await platformDev(await newFolder(), [], { PLATFORM_CACHE_DIR: cache });
        into.push(dev.readyMs);
        await stop(dev);
      }
    } finally {
      for (const dir of [...folders, cache]) await rm(dir, { recursive: true, force: true });
    }
  }
  const shipped = existsSync(join(root, 'packages/broker/dist/snapshots/snapshots.json'));
  const first = median(empty);
  const baseline = median(warm);
  return row(
    `dev: ready, todo example, empty machine cache (${shipped ? 'shipped snapshots' : 'no shipped snapshots: not built'}) vs new folder on a warm cache`,
    ms(first),
    ms(baseline),
    first / baseline,
    { text: '< 2x', met: first / baseline < 2 },
  );
}

// The example's public Function (its stats), called in turn: a caller needs no sign-in.
async function calls(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await call(url, 'publicStats');
}

export async function run(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'dev-bench-'));
  try {
    await cp(example, dir, { recursive: true, filter: (path) => !path.includes('.platform') });
    const floor = await floorServer();
    const floorRss = await treeRss(floor.child.pid as number);
    await stop(floor);
    const fresh = await platformDev(dir);
    const readyRss = await treeRss(fresh.child.pid as number);
    // Settled: a few seconds on, once whatever the start needed only for itself has gone.
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    const settledRss = await treeRss(fresh.child.pid as number);
    await stop(fresh);
    const warm = await platformDev(dir);
    await calls(warm.url, CALLS);
    const calledRss = await treeRss(warm.child.pid as number);
    await stop(warm);
    const memory = (name: string, bytes: number) =>
      row(name, mb(bytes), mb(floorRss), bytes / floorRss, {
        text: '< 250 MB',
        met: bytes < 250 * 1024 * 1024,
      });
    const start = (name: string, took: number, goal: number) =>
      row(name, ms(took), ms(floor.readyMs), took / floor.readyMs, {
        text: `< ${goal} ms`,
        met: took < goal,
      });
    return [
      start('dev: ready, todo example, new app folder', fresh.readyMs, 1500),
      start('dev: ready, todo example, warm app folder', warm.readyMs, 500),
      memory('dev: memory, broker and children, at ready (new folder)', readyRss),
      memory(`dev: memory ${SETTLE_MS / 1000} s after ready (new folder)`, settledRss),
      memory(`dev: memory after ${CALLS} calls (warm start)`, calledRss),
      ...(FIRST_ROUNDS > 0 ? [await firstStartRow()] : []),
      ...(SCALE.length > 1 ? await scaleRows() : []),
      ...(process.env.DEV_BENCH_DATABASES === '0'
        ? []
        : await (await import('./dev-database.ts')).databaseRows()),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
