// functions.call round trip through `platform dev` to a Deno Function that returns its input,
// against the floor: a bare node:http server on loopback that echoes the same body. Every
// server runs in a process of its own, as `platform dev` does, and the load comes from another
// process (bench/broker/load-client.ts), as a browser's would: a client in the server's own
// process would share its event loop and never wait on another process, which no real caller
// does. Same client, same body, same run, with 1 and 16 callers, each figure the median of
// alternated rounds (BROKER_BENCH_ROUNDS, default 3). Also: a bare `Deno.serve`
// echo (the least any subprocess Function adds), the first call after `platform dev` starts
// (bench/broker/first-call.ts), and the time from spawning `platform dev` to its URL line.
//
// As a suite of bench/run.ts: `broker: () => import('./broker/functions.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/broker/functions.ts`.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { denoPath } from '../../packages/broker/src/functions/deno.ts';
import { median, type Row, row } from '../report.ts';
import { fromSource, platformDev, root, type Server, spawnServer, stop } from './dev-process.ts';
import { ECHO_PATH, echoApp, echoBody } from './echo-app.ts';
import { firstCallRows } from './first-call.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const body = echoBody;
const CALLS = Number(process.env.BROKER_BENCH_CALLS ?? 3000);
// The floor's own p50 at 16 callers moved by half between single runs; the median of alternated
// rounds is steadier.
const ROUNDS = Number(process.env.BROKER_BENCH_ROUNDS ?? 3);
const SERVER_WARMUP_CALLS = 30_000;
const CALL_PATH = ECHO_PATH;

interface Figures {
  p50: number;
  p99: number;
  rps: number;
}

const execFileAsync = promisify(execFile);

/** One load run from a client process of its own. */
async function load(port: number, path: string, callers: number, calls = CALLS): Promise<Figures> {
  const plan = { port, path, body, callers, calls };
  const { stdout } = await execFileAsync(
    process.execPath,
    [...fromSource, here('./load-client.ts'), JSON.stringify(plan)],
    { cwd: root },
  );
  return JSON.parse(stdout) as Figures;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Each figure's median over the rounds of one server. */
function medianFigures(rounds: Figures[]): Figures {
  return {
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    rps: median(rounds.map((r) => r.rps)),
  };
}

export async function run(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-broker-'));
  const rows: Row[] = [];
  const servers: Server[] = [];
  try {
    for (const [path, text] of Object.entries(echoApp)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    // A first start creates the database and the bundle; the figures below are of a warm app
    // folder, the usual case of `platform dev`.
    await stop(await platformDev(dir));
    rows.push(...(await firstCallRows(dir)));
    const dev = await platformDev(dir);
    servers.push(dev);
    rows.push(
      row('broker: `platform dev` to URL line (subprocess, warm app)', ms(dev.readyMs), '-', NaN),
    );
    const floor = await spawnServer(
      process.execPath,
      [...fromSource, here('./echo-server.ts')],
      /^(\d+)$/,
    );
    servers.push(floor);
    const deno = await spawnServer(
      denoPath(),
      ['run', '--no-config', '--no-lock', '--allow-net=127.0.0.1', here('./deno-echo.ts')],
      /^(\d+)$/,
    );
    servers.push(deno);
    // A dev server runs for hours: V8 keeps tiering up hot code and growing its young
    // generation for tens of thousands of calls (the broker's p50 still fell by a tenth between
    // rounds after the per-client warm-up alone). Every server gets the same long warm-up.
    for (const [port, path] of [
      [dev.port, CALL_PATH],
      [floor.port, '/'],
      [deno.port, '/'],
    ] as const) {
      await load(port, path, 16, SERVER_WARMUP_CALLS);
    }
    for (const callers of [1, 16]) {
      const rounds: { ours: Figures; base: Figures; denoHop: Figures }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternated, so background load hits all three alike.
        const ours = await load(dev.port, CALL_PATH, callers);
        const base = await load(floor.port, '/', callers);
        const denoHop = await load(deno.port, '/', callers);
        rounds.push({ ours, base, denoHop });
      }
      const ours = medianFigures(rounds.map((r) => r.ours));
      const base = medianFigures(rounds.map((r) => r.base));
      const denoHop = medianFigures(rounds.map((r) => r.denoHop));
      const ratio = ours.p50 / base.p50;
      // The goals of the embedded default: at most twice the floor for one caller, and 1.5
      // times under load, where both sides keep their connections busy.
      const goal = callers === 1 ? 2 : 1.5;
      rows.push(
        row(`broker: functions.call p50, ${callers} caller(s)`, ms(ours.p50), ms(base.p50), ratio, {
          text: `p50 within ${goal}x of the floor`,
          met: ratio <= goal,
        }),
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
        row(
          `reference: bare Deno.serve echo p50, ${callers} caller(s)`,
          ms(denoHop.p50),
          ms(base.p50),
          denoHop.p50 / base.p50,
        ),
      );
    }
  } finally {
    for (const server of servers) await stop(server);
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
