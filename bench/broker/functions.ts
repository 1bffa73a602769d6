// functions.call round trip through `platform dev` to a Deno Function that returns its input,
// against the floor: a bare node:http server on loopback that echoes the same body, measured
// by the same client (an undici Pool) in the same run, with 1 and 16 callers. Also the cold
// start (the first call after dev start) and the time from `platform dev` to ready, in-process
// and as a real subprocess (Node start and module loading included).
//
// As a suite of bench/run.ts: `broker: () => import('./broker/functions.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/broker/functions.ts`.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startDev } from '../../packages/broker/src/dev/dev-server.ts';
import { type Row, row } from '../report.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const body = JSON.stringify({ text: 'hello', n: 42, list: [1, 2, 3] });
const CALLS = Number(process.env.BROKER_BENCH_CALLS ?? 3000);

const app: Record<string, string> = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: echo
    entrypoint: functions/echo/index.ts
    access: public
`,
  'functions/echo/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ text: s.string(), n: s.number(), list: s.array(s.number()) }),
  handler: ({ input }) => input,
});
`,
};

interface Figures {
  p50: number;
  p99: number;
  rps: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** A keep-alive HTTP client for one origin: the same client measures both paths. */
interface Client {
  readonly port: number;
  readonly agent: Agent;
}

const client = (port: number): Client => ({
  port,
  agent: new Agent({ keepAlive: true, maxSockets: 32 }),
});

function post(c: Client, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: c.port,
        path,
        method: 'POST',
        agent: c.agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.once('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** `calls` POSTs of `body` to `path`, `callers` at a time. */
async function measure(c: Client, path: string, callers: number, calls: number): Promise<Figures> {
  const times: number[] = [];
  let next = 0;
  const one = async () => {
    const started = performance.now();
    await post(c, path);
    times.push(performance.now() - started);
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next++ < calls) await one();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), rps: times.length / seconds };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** A bare echo server: reads the JSON body and answers `{ result }` with it. */
async function floorServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const answer = `{"result":${text}}`;
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(answer),
    });
    response.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Wall time from spawning `platform dev` to its URL line. */
async function subprocessReady(appDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--conditions=@platform/source',
      '--import',
      'tsx',
      join(root, 'packages/broker/src/bin.ts'),
      'dev',
      appDir,
      '--port',
      '0',
      '--no-watch',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const elapsed = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (/^http:\/\/localhost:\d+$/.test(line)) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`platform dev exited with ${code}`)));
  });
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return elapsed;
}

export async function run(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-broker-'));
  const rows: Row[] = [];
  try {
    for (const [path, text] of Object.entries(app)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    // A first start creates the database and the bundle; the figures below are of a warm app
    // folder, the usual case of `platform dev`.
    await (await startDev({ appDir: dir, port: 0, watch: false, logWriter: () => {} })).close();
    const dev = await startDev({ appDir: dir, port: 0, watch: false, logWriter: () => {} });
    const floor = await floorServer();
    const broker = client(dev.port);
    const bare = client(floor.port);
    try {
      const coldStarted = performance.now();
      await measure(broker, '/_platform/api/functions/echo', 1, 1);
      const cold = performance.now() - coldStarted;
      const warmStarted = performance.now();
      await measure(broker, '/_platform/api/functions/echo', 1, 1);
      const warm = performance.now() - warmStarted;
      rows.push(
        row(
          'broker: cold call after dev start (vs the next call)',
          ms(cold),
          ms(warm),
          cold / warm,
        ),
      );
      // Warm both paths up, then alternate so background load hits both alike.
      await measure(broker, '/_platform/api/functions/echo', 4, 500);
      await measure(bare, '/', 4, 500);
      for (const callers of [1, 16]) {
        const ours = await measure(broker, '/_platform/api/functions/echo', callers, CALLS);
        const base = await measure(bare, '/', callers, CALLS);
        const ratio = ours.p50 / base.p50;
        rows.push(
          row(
            `broker: functions.call p50, ${callers} caller(s)`,
            ms(ours.p50),
            ms(base.p50),
            ratio,
            {
              text: 'p50 within 3x of the floor',
              met: ratio <= 3,
            },
          ),
          row(
            `broker: functions.call p99, ${callers} caller(s)`,
            ms(ours.p99),
            ms(base.p99),
            ours.p99 / base.p99,
          ),
          row(
            `broker: functions.call req/s, ${callers} caller(s)`,
            `${Math.round(ours.rps)} req/s`,
            `${Math.round(base.rps)} req/s`,
            ours.rps / base.rps,
          ),
        );
      }
      rows.push(
        row('broker: startDev to ready (in-process, warm app)', ms(dev.readyMs), '-', Number.NaN),
      );
    } finally {
      broker.agent.destroy();
      bare.agent.destroy();
      await floor.close();
      await dev.close();
    }
    const ready = await subprocessReady(dir);
    rows.push(
      row('broker: `platform dev` to URL line (subprocess, warm app)', ms(ready), '-', Number.NaN),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
