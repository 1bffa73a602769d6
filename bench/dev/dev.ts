// `platform dev` of the todo example (12 Functions) as a user runs it: the time from spawning it
// to its URL line in a new app folder and again in the same (warm) folder, and the memory of the
// running broker with all its children (the sum of their resident sets, read from /proc) once
// ready, five seconds later, and (warm) after 1,000 calls of the example's public Function. The same run's floor: a bare node:http server, its
// start to the same kind of line, and its own resident set.
//
// As a suite of bench/run.ts: `dev: () => import('./dev/dev.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/dev/dev.ts`.
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Row, row } from '../report.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'examples', 'todo');
const tsx = ['--conditions=@platform/source', '--import', 'tsx'];
const CALLS = Number(process.env.DEV_BENCH_CALLS ?? 1000);
const SETTLE_MS = 5000;

/** A process in its own group, known by the URL it printed. */
interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly readyMs: number;
}

async function start(command: string, args: string[], pattern: RegExp): Promise<Started> {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: root,
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

async function stop(started: Started): Promise<void> {
  const exited = new Promise((done) => started.child.once('exit', done));
  process.kill(-(started.child.pid as number), 'SIGTERM');
  await exited;
}

/** The resident memory of `pid` and every process below it, in bytes (Linux /proc). */
export async function treeRss(pid: number): Promise<number> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const close = stat.lastIndexOf(')');
    if (close < 0) continue;
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop() as number;
    const status = await readFile(`/proc/${next}/status`, 'utf8').catch(() => '');
    total += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    pending.push(...(parents.get(next) ?? []));
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

const platformDev = (dir: string) =>
  start(
    process.execPath,
    [...tsx, join(root, 'packages/broker/src/bin.ts'), 'dev', dir, '--port', '0'],
    /^(http:\/\/localhost:\d+)$/,
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

// The example's public Function (its stats), called in turn: a caller needs no sign-in.
async function calls(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${url}/_platform/api/functions/publicStats`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    if (!response.ok) throw new Error(`publicStats answered ${response.status}`);
    await response.arrayBuffer();
  }
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
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
