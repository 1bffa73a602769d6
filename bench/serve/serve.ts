// A trivial Function through `platform serve` as a deployed app reached by its Host-routed
// address (`bench.localhost:<port>`, PostgreSQL behind it), against the same Function under
// `platform dev` and against a bare `node:http` echo, same run. Every server runs in a process of
// its own and the load comes from another (bench/broker/load-client.ts), as in
// bench/broker/functions.ts. Each figure is the median of alternated rounds
// (SERVE_BENCH_ROUNDS, default 3) of SERVE_BENCH_CALLS calls (default 3000) with
// SERVE_BENCH_CALLERS callers at a time (default 1,16), each bounded to 10 seconds.
//
// As a suite of bench/run.ts: `serve: () => import('./serve/serve.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/serve/serve.ts`.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AccountCredentials } from '../../packages/broker/src/auth/account-credentials.ts';
import { buildDeployment } from '../../packages/broker/src/cli/build-deployment.ts';
import { PostgresDatabase } from '../../packages/broker/src/db/postgres-database.ts';
import { systemClock } from '../../packages/broker/src/kernel/clock.ts';
import { startPostgres } from '../../packages/broker/test/helpers/postgres-server.ts';
import { ECHO_PATH, echoApp, echoBody } from '../broker/echo-app.ts';
import { median, numbersFromEnv, type Row, row } from '../report.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const fromSource = ['--conditions=@platform/source'];
const bin = join(root, 'packages/broker/src/bin.ts');
const body = echoBody;
const CALLS = Number(process.env.SERVE_BENCH_CALLS ?? 3000);
const ROUNDS = Number(process.env.SERVE_BENCH_ROUNDS ?? 3);
const CALLERS = numbersFromEnv('SERVE_BENCH_CALLERS', '1,16');
/** Warm-up calls per server before the rounds (JIT, pools, the Function's process). */
const WARMUP_CALLS = Number(process.env.SERVE_BENCH_WARMUP ?? 5000);
const ROUND_SECONDS = 10;
const CALL_PATH = ECHO_PATH;
const APP = 'bench';

interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly rps: number;
}

/** A server in its own process group, the port it listens on and the Host its callers send. */
interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  readonly host?: string;
  readonly path: string;
}

/** Spawns `args` under Node and resolves with the first stdout or stderr match of `pattern`. */
function spawnUntil(
  args: string[],
  pattern: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const look = (line: string) => {
      output.push(line);
      const match = pattern.exec(line);
      if (match) resolve({ child, match });
    };
    createInterface({ input: child.stdout! }).on('line', look);
    createInterface({ input: child.stderr! }).on('line', look);
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${output.slice(-20).join('\n')}`)),
    );
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-(child.pid as number), 'SIGTERM');
  await exited;
}

/** A free port on 127.0.0.1, so `{base_url}` can name it before the service starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const execFileAsync = promisify(execFile);

/** One load run from a client process of its own. */
async function load(server: Server, callers: number, calls: number): Promise<Figures> {
  const plan = {
    port: server.port,
    path: server.path,
    body,
    callers,
    calls,
    seconds: ROUND_SECONDS,
    ...(server.host ? { host: server.host } : {}),
  };
  const { stdout } = await execFileAsync(
    process.execPath,
    [...fromSource, here('../broker/load-client.ts'), JSON.stringify(plan)],
    { cwd: root },
  );
  return JSON.parse(stdout) as Figures;
}

/**
 * `platform serve` on `postgresUrl` with the app deployed: the first administrator made through
 * the setup link it prints, an account credential minted for them as `platform login` would get
 * one, the app built here and uploaded as `platform deploy` does.
 */
async function platformServe(postgresUrl: string, dir: string, appDir: string): Promise<Server> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PLATFORM_') && name !== 'DATABASE_URL',
    ),
  );
  const { child, match } = await spawnUntil(
    [...fromSource, bin, 'serve'],
    /_platform\/setup\?key=([A-Za-z0-9_-]+)/,
    {
      ...env,
      NO_COLOR: '1',
      PLATFORM_DATABASE_URL: postgresUrl,
      PLATFORM_BASE_DOMAIN: 'localhost',
      PLATFORM_BASE_URL: base,
      PLATFORM_LISTEN: `127.0.0.1:${port}`,
      PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
      PLATFORM_FILES_DIR: join(dir, 'files'),
      PLATFORM_CREDENTIAL_KEY_FILE: join(dir, 'credentials.key'),
      // One JSON line per request would measure the terminal; warnings still show.
      PLATFORM_LOG_LEVEL: 'warn',
    },
  );
  // Keep reading, so a chatty service never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  try {
    const made = await fetch(`${base}/_platform/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: new URLSearchParams({
        key: match[1] as string,
        email: 'bench@example.com',
        password: 'a long enough password',
      }),
    });
    if (made.status !== 200) throw new Error(`the setup link answered ${made.status}`);
    const central = await PostgresDatabase.connect(
      postgresUrl.replace('/postgres?', '/platform_central?'),
      1,
    );
    let token: string;
    try {
      const { rows } = await central.query<{ id: string }>(
        "SELECT id::text FROM platform.accounts WHERE email = 'bench@example.com'",
      );
      const credentials = new AccountCredentials(central, systemClock);
      token = (await credentials.issue(rows[0]?.id as string, 'bench')).token;
    } finally {
      await central.close();
    }
    const { archive } = await buildDeployment(appDir);
    const deployed = await fetch(`${base}/v1/apps/${APP}/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: new Uint8Array(archive),
    });
    if (deployed.status !== 201) {
      throw new Error(`the deployment answered ${deployed.status}: ${await deployed.text()}`);
    }
    return { child, port, host: `${APP}.localhost:${port}`, path: CALL_PATH };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

async function platformDev(appDir: string): Promise<Server> {
  const { child, match } = await spawnUntil(
    [...fromSource, bin, 'dev', appDir, '--port', '0', '--no-watch'],
    /^http:\/\/localhost:(\d+)$/,
  );
  child.stdout?.resume();
  child.stderr?.resume();
  return { child, port: Number(match[1]), path: CALL_PATH };
}

async function echoServer(): Promise<Server> {
  const { child, match } = await spawnUntil(
    [...fromSource, here('../broker/echo-server.ts')],
    /^(\d+)$/,
  );
  return { child, port: Number(match[1]), path: '/' };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const rps = (value: number) => `${Math.round(value)} req/s`;

/** Each figure's median over the rounds of one server. */
function medianFigures(rounds: readonly Figures[]): Figures {
  return {
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    rps: median(rounds.map((r) => r.rps)),
  };
}

/** p50, p99 and req/s of `ours` against `base`. */
function compare(name: string, ours: Figures, base: Figures): Row[] {
  return [
    row(`${name} p50`, ms(ours.p50), ms(base.p50), ours.p50 / base.p50),
    row(`${name} p99`, ms(ours.p99), ms(base.p99), ours.p99 / base.p99),
    row(`${name} req/s`, rps(ours.rps), rps(base.rps), ours.rps / base.rps),
  ];
}

export async function run(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-serve-'));
  const appDir = join(dir, 'app');
  const postgres = await startPostgres();
  const children: ChildProcess[] = [];
  const rows: Row[] = [];
  try {
    for (const [path, text] of Object.entries(echoApp)) {
      await mkdir(dirname(join(appDir, path)), { recursive: true });
      await writeFile(join(appDir, path), text);
    }
    const serve = await platformServe(postgres.url, dir, appDir);
    children.push(serve.child);
    // A first dev start creates the database and the bundle; the figures are of a warm folder.
    await stop((await platformDev(appDir)).child);
    const dev = await platformDev(appDir);
    children.push(dev.child);
    const floor = await echoServer();
    children.push(floor.child);
    for (const server of [serve, dev, floor]) await load(server, 16, WARMUP_CALLS);
    for (const callers of CALLERS) {
      const rounds: { serve: Figures; dev: Figures; floor: Figures }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternated, so background load hits all three alike.
        rounds.push({
          serve: await load(serve, callers, CALLS),
          dev: await load(dev, callers, CALLS),
          floor: await load(floor, callers, CALLS),
        });
      }
      const ours = medianFigures(rounds.map((r) => r.serve));
      const underDev = medianFigures(rounds.map((r) => r.dev));
      const echo = medianFigures(rounds.map((r) => r.floor));
      rows.push(
        ...compare(`serve vs dev: Function call, ${callers} caller(s),`, ours, underDev),
        ...compare(`serve vs node:http echo: ${callers} caller(s),`, ours, echo),
      );
    }
  } finally {
    for (const child of children) await stop(child);
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
