// The coordination cost per request of several `platform serve` nodes on one PostgreSQL: for a
// trivial Function call, a row write and a file upload (each a Function called with an app
// access token), the statements PostgreSQL ran per request (pg_stat_statements deltas, each
// statement one round trip), the commits and the rows written per request, and the time (p50,
// req/s), with one node against three, same run. The nodes sit behind HAProxy (Debian's package)
// when it is installed, one node behind it as three are, so the balancer's hop is in both;
// without HAProxy the load client's requests go round-robin to the nodes. Also: the statements
// per second the nodes run with no request at all (their polls and leases), and the connections
// they hold.
//
// SCALE_BENCH_CALLS (default 1500) calls per figure, SCALE_BENCH_CALLERS (default 8) at a time,
// each run bounded to SCALE_BENCH_SECONDS (default 20); SCALE_BENCH_IDLE_SECONDS (default 10)
// of idle counting; PostgreSQL alone through pgbench for SCALE_BENCH_PGBENCH_SECONDS (default
// 10). Idle statements are subtracted from each run's (each run's per-second rate times its
// length). The figures feed docs/scaling.md, "Capacity".
//
// As a suite of bench/run.ts: `scale: () => import('./scale/scale.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/scale/scale.ts`.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { AccountCredentials } from '../../packages/broker/src/auth/account-credentials.ts';
import { AppTokens } from '../../packages/broker/src/auth/app-tokens.ts';
import { buildDeployment } from '../../packages/broker/src/cli/build-deployment.ts';
import { appDatabaseName } from '../../packages/broker/src/db/database-per-app.ts';
import { PostgresDatabase } from '../../packages/broker/src/db/postgres-database.ts';
import { systemClock } from '../../packages/broker/src/kernel/clock.ts';
import {
  type PostgresServer,
  startPostgres,
} from '../../packages/broker/test/helpers/postgres-server.ts';
import { postJson } from '../broker/post-json.ts';
import { type Row, row } from '../report.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const fromSource = ['--conditions=@platform/source'];
const bin = join(root, 'packages/broker/src/bin.ts');
const CALLS = Number(process.env.SCALE_BENCH_CALLS ?? 1500);
const CALLERS = Number(process.env.SCALE_BENCH_CALLERS ?? 8);
const SECONDS = Number(process.env.SCALE_BENCH_SECONDS ?? 20);
const IDLE_SECONDS = Number(process.env.SCALE_BENCH_IDLE_SECONDS ?? 10);
const HAPROXY = '/usr/sbin/haproxy';
const PGBENCH_SECONDS = Number(process.env.SCALE_BENCH_PGBENCH_SECONDS ?? 10);
const APP = 'scale';

const app: Readonly<Record<string, string>> = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: hello
    entrypoint: functions/hello/index.ts
    access: public
  - name: write
    entrypoint: functions/write/index.ts
    access: public
  - name: upload
    entrypoint: functions/upload/index.ts
    access: public
`,
  'migrations/001_notes.sql': `create table notes (
  id bigserial primary key,
  owner_id uuid not null default auth.uid(),
  body text not null
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`,
  'functions/hello/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({ input: s.object({}), handler: () => ({ ok: true }) });
`,
  'functions/write/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ body: s.string() }),
  handler: async ({ input, data }) => {
    const note = await data.table('notes').create({ body: input.body });
    return { id: note.id };
  },
});
`,
  'functions/upload/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ text: s.string() }),
  handler: async ({ input, files }) => {
    const ref = await files.upload({
      data: new TextEncoder().encode(input.text),
      name: 'note.txt',
      contentType: 'text/plain',
    });
    return { id: ref.id };
  },
});
`,
};

/** The three requests measured: a Function's path and the body each call sends. */
const operations = [
  { name: 'trivial Function call', path: '/_platform/api/functions/hello', body: '{}' },
  {
    name: 'row write',
    path: '/_platform/api/functions/write',
    body: JSON.stringify({ body: 'a note of about forty characters, say.' }),
  },
  {
    name: 'file upload (1 KiB)',
    path: '/_platform/api/functions/upload',
    body: JSON.stringify({ text: 'x'.repeat(1024) }),
  },
] as const;

interface Node {
  readonly child: ChildProcess;
  readonly port: number;
}

interface LoadFigures {
  readonly p50: number;
  readonly p99: number;
  readonly rps: number;
  readonly calls: number;
}

/** PostgreSQL's counters, summed over the server. */
interface Counters {
  readonly statements: number;
  readonly commits: number;
  readonly rowsWritten: number;
}

const execFileAsync = promisify(execFile);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-(child.pid as number), 'SIGTERM');
  await exited;
}

/** A `platform serve` node on `postgres`, its state in `dir`; resolves once it listens. */
async function startNode(
  postgres: PostgresServer,
  dir: string,
  keyFile: string,
  baseUrl: (port: number) => string,
): Promise<{ node: Node; setupKey: Promise<string> }> {
  const port = await freePort();
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PLATFORM_') && name !== 'DATABASE_URL',
    ),
  );
  const child = spawn(process.execPath, [...fromSource, bin, 'serve'], {
    cwd: root,
    env: {
      ...env,
      NO_COLOR: '1',
      PLATFORM_DATABASE_URL: postgres.url,
      PLATFORM_BASE_DOMAIN: 'localhost',
      PLATFORM_BASE_URL: baseUrl(port),
      PLATFORM_LISTEN: `127.0.0.1:${port}`,
      PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
      PLATFORM_FILES_DIR: join(dir, 'files'),
      PLATFORM_CREDENTIAL_KEY_FILE: keyFile,
      PLATFORM_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const setupKey = new Promise<string>((resolve) => {
    const look = (line: string) => {
      const key = /_platform\/setup\?key=([A-Za-z0-9_-]+)/.exec(line)?.[1];
      if (key) resolve(key);
    };
    createInterface({ input: child.stdout! }).on('line', look);
    createInterface({ input: child.stderr! }).on('line', look);
  });
  await waitFor(async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/_platform/healthz`).catch(() => undefined);
    return answer?.status === 200;
  }, `node on ${port} to listen`);
  return { node: { child, port }, setupKey };
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whether `port` answers a call of the trivial Function of the app with 200. */
async function serves(port: number, token: string): Promise<boolean> {
  return postJson(port, operations[0].path, '{}', undefined, `${APP}.localhost:${port}`, {
    authorization: `Bearer ${token}`,
  }).then(
    () => true,
    (error: Error) => {
      if (process.env.SCALE_BENCH_DEBUG) console.error(error.message);
      return false;
    },
  );
}

/** HAProxy on a free port in front of `nodes`, as docs/scaling.md configures it. */
async function startBalancer(dir: string, nodes: readonly Node[]): Promise<Node> {
  const port = await freePort();
  const config = join(dir, `haproxy-${nodes.length}.cfg`);
  await writeFile(
    config,
    `global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  option http-keep-alive
frontend front
  bind 127.0.0.1:${port}
  default_backend nodes
backend nodes
  balance roundrobin
${nodes.map((node, i) => `  server n${i} 127.0.0.1:${node.port}`).join('\n')}
`,
  );
  const child = spawn(HAPROXY, ['-f', config, '-db'], { stdio: 'ignore', detached: true });
  await waitFor(async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/_platform/healthz`).catch(() => undefined);
    return answer?.status === 200;
  }, 'HAProxy to listen');
  return { child, port };
}

/** One load run from a client process of its own, against each port in turn's share. */
async function load(
  ports: readonly number[],
  operation: (typeof operations)[number],
  token: string,
  calls: number,
): Promise<LoadFigures> {
  // Without a balancer, the callers split evenly over the nodes: round-robin by caller.
  const share = Math.ceil(calls / ports.length);
  const callers = Math.max(1, Math.round(CALLERS / ports.length));
  const runs = await Promise.all(
    ports.map(async (port) => {
      const plan = {
        port,
        path: operation.path,
        body: operation.body,
        callers,
        calls: share,
        seconds: SECONDS,
        warmup: 0,
        host: `${APP}.localhost:${port}`,
        headers: { authorization: `Bearer ${token}` },
      };
      const { stdout } = await execFileAsync(
        process.execPath,
        [...fromSource, here('../broker/load-client.ts'), JSON.stringify(plan)],
        { cwd: root },
      );
      return JSON.parse(stdout) as LoadFigures;
    }),
  );
  if (runs.length === 1) return runs[0] as LoadFigures;
  return {
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    rps: runs.reduce((sum, r) => sum + r.rps, 0),
    calls: runs.reduce((sum, r) => sum + r.calls, 0),
  };
}

async function counters(client: pg.Client): Promise<Counters> {
  const { rows } = await client.query<{ statements: string; commits: string; written: string }>(
    // The bench's own reads of the statistics are not the nodes' cost.
    `SELECT (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
              WHERE query NOT LIKE '%pg_stat%')::text AS statements,
            sum(xact_commit)::text AS commits,
            sum(tup_inserted + tup_updated + tup_deleted)::text AS written
       FROM pg_stat_database`,
  );
  const one = rows[0] as { statements: string; commits: string; written: string };
  return {
    statements: Number(one.statements),
    commits: Number(one.commits),
    rowsWritten: Number(one.written),
  };
}

/**
 * How long a backend may hold its statistics before PostgreSQL's shared counters show them: an
 * idle backend flushes within 10 s (PGSTAT_IDLE_INTERVAL), so the counters are read after that.
 */
const SETTLE_MS = 11_000;

const clients = (client: pg.Client) =>
  client
    .query<{ n: string }>(
      "SELECT count(*)::text AS n FROM pg_stat_activity WHERE backend_type = 'client backend'",
    )
    // Less this one.
    .then(({ rows }) => Number(rows[0]?.n) - 1);

/**
 * The counters' growth over `work` (settled before and after), how long `work` took, and the
 * most connections the server had meanwhile (sampled every 200 ms).
 */
async function counted<T>(
  client: pg.Client,
  work: () => Promise<T>,
): Promise<{ result: T; delta: Counters; seconds: number; peakConnections: number }> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const before = await counters(client);
  const started = performance.now();
  let peakConnections = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakConnections = Math.max(peakConnections, await clients(client));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const result = await work().finally(() => {
    sampling = false;
  });
  await sampler;
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = await counters(client);
  return {
    result,
    seconds: seconds + SETTLE_MS / 1000,
    peakConnections,
    delta: {
      statements: after.statements - before.statements,
      commits: after.commits - before.commits,
      rowsWritten: after.rowsWritten - before.rowsWritten,
    },
  };
}

/** What one topology measured. */
interface Topology {
  readonly idlePerSecond: Counters;
  readonly connections: number;
  /** The most connections held while requests ran. */
  readonly peakConnections: number;
  readonly perRequest: Map<string, { counters: Counters; load: LoadFigures }>;
}

async function measure(
  label: string,
  client: pg.Client,
  ports: readonly number[],
  token: string,
): Promise<Topology> {
  await client.query('SELECT pg_stat_statements_reset()');
  const idle = await counted(
    client,
    () => new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000)),
  );
  const { rows: top } = await client.query<{ n: string; query: string }>(
    `SELECT calls::text AS n, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS query
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' ORDER BY pg_stat_statements.calls DESC LIMIT 8`,
  );
  console.log(
    `statements of ${label} in ${Math.round(idle.seconds)} s with no request, most frequent first:`,
  );
  for (const one of top) console.log(`  ${one.n.padStart(5)}  ${one.query}`);
  const idleSeconds = idle.seconds;
  const idlePerSecond = {
    statements: idle.delta.statements / idleSeconds,
    commits: idle.delta.commits / idleSeconds,
    rowsWritten: idle.delta.rowsWritten / idleSeconds,
  };
  const connections = await clients(client);
  let peakConnections = connections;
  const perRequest = new Map<string, { counters: Counters; load: LoadFigures }>();
  for (const operation of operations) {
    // Warm: each node's Function process and pools, outside the counted run.
    await load(ports, operation, token, 100);
    const run = await counted(client, () => load(ports, operation, token, CALLS));
    peakConnections = Math.max(peakConnections, run.peakConnections);
    const background = (key: keyof Counters) => idlePerSecond[key] * run.seconds;
    const per = (key: keyof Counters) =>
      Math.max(0, run.delta[key] - background(key)) / run.result.calls;
    perRequest.set(operation.name, {
      counters: {
        statements: per('statements'),
        commits: per('commits'),
        rowsWritten: per('rowsWritten'),
      },
      load: run.result,
    });
  }
  return { idlePerSecond, connections, peakConnections, perRequest };
}

/** The newest installed PostgreSQL's pgbench (Debian layout), if any. */
function pgbenchBin(): string | undefined {
  const versions = ['17', '16', '15', '14'];
  for (const version of versions) {
    const path = `/usr/lib/postgresql/${version}/bin/pgbench`;
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * What this PostgreSQL server does alone on this machine, with the nodes stopped: pgbench's
 * select-only transactions (one statement each) and its simple-update ones (five statements,
 * two rows written), 8 clients, for the capacity projection of docs/scaling.md.
 */
async function pgbench(postgres: PostgresServer): Promise<{ selects: number; writes: number }> {
  const path = pgbenchBin();
  if (path === undefined) return { selects: Number.NaN, writes: Number.NaN };
  const url = new URL(postgres.url.replace('postgres://', 'http://'));
  const host = url.searchParams.get('host') ?? '';
  const env = { ...process.env, PGHOST: host, PGUSER: 'postgres', PGDATABASE: 'bench_pgbench' };
  await execFileAsync(join(dirname(path), 'createdb'), ['bench_pgbench'], { env });
  await execFileAsync(path, ['-i', '-s', '4', '-q'], { env });
  const tps = async (args: string[]) => {
    const { stdout } = await execFileAsync(
      path,
      [...args, '-c', '8', '-j', '2', '-T', String(PGBENCH_SECONDS), '-n'],
      { env },
    );
    return Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
  };
  return { selects: await tps(['-S']), writes: await tps(['-N']) };
}

export async function run(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-scale-'));
  const appDir = join(dir, 'app');
  const keyFile = join(dir, 'credentials.key');
  const postgres = await startPostgres({
    settings: ['shared_preload_libraries=pg_stat_statements', 'max_connections=200'],
  });
  const children: ChildProcess[] = [];
  const rows: Row[] = [];
  const balanced = existsSync(HAPROXY);
  const stats = new pg.Client({ connectionString: postgres.url });
  await stats.connect();
  try {
    await stats.query('CREATE EXTENSION pg_stat_statements');
    for (const [path, text] of Object.entries(app)) {
      await mkdir(dirname(join(appDir, path)), { recursive: true });
      await writeFile(join(appDir, path), text);
    }
    // {base_url} names the node's own port: the bench reaches each node and the balancer by
    // the app's Host, never by {base_url}.
    const base = (port: number) => `http://localhost:${port}`;
    const first = await startNode(postgres, join(dir, 'a'), keyFile, base);
    children.push(first.node.child);
    const a = first.node;
    const made = await fetch(`${base(a.port)}/_platform/setup`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: base(a.port),
      },
      body: new URLSearchParams({
        key: await first.setupKey,
        email: 'bench@example.com',
        password: 'a long enough password',
      }),
    });
    if (made.status !== 200) throw new Error(`the setup link answered ${made.status}`);
    const central = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', '/platform_central?'),
      1,
    );
    let account: string;
    try {
      const { rows: found } = await central.query<{ id: string }>(
        "SELECT id::text FROM platform.accounts WHERE email = 'bench@example.com'",
      );
      account = (
        await new AccountCredentials(central, systemClock).issue(found[0]?.id as string, 'bench')
      ).token;
    } finally {
      await central.close();
    }
    const { archive } = await buildDeployment(appDir);
    const deployed = await fetch(`${base(a.port)}/v1/apps/${APP}/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account}`, 'content-type': 'application/gzip' },
      body: new Uint8Array(archive),
    });
    if (deployed.status !== 201) {
      throw new Error(`the deployment answered ${deployed.status}: ${await deployed.text()}`);
    }
    // The app access token every call carries: it acts as the owner, who may write files.
    const appDb = new pg.Client({
      connectionString: postgres.url.replace('/postgres?', `/${appDatabaseName(APP)}?`),
    });
    await appDb.connect();
    let token: string;
    try {
      const tokens = new AppTokens(
        { query: (text: string, params?: unknown[]) => appDb.query(text, params) } as never,
        systemClock,
        APP,
      );
      token = (await tokens.issue('bench')).token;
    } finally {
      await appDb.end();
    }
    await waitFor(() => serves(a.port, token), 'the app on node A');

    const front = async (nodes: readonly Node[]): Promise<readonly number[]> => {
      if (!balanced) return nodes.map((node) => node.port);
      const balancer = await startBalancer(dir, nodes);
      children.push(balancer.child);
      return [balancer.port];
    };
    const one = await measure('1 node', stats, await front([a]), token);
    const added: Node[] = [];
    for (const name of ['b', 'c']) {
      const started = await startNode(postgres, join(dir, name), keyFile, base);
      children.push(started.node.child);
      added.push(started.node);
      await waitFor(() => serves(started.node.port, token), `the app on node ${name}`);
    }
    const three = await measure('3 nodes', stats, await front([a, ...added]), token);
    const how = balanced ? 'behind HAProxy' : 'round-robin in the client';
    const fixed = (value: number, digits = 1) => value.toFixed(digits);
    rows.push(
      row(
        `scale: idle statements/s, 3 nodes vs 1 (${how})`,
        `${fixed(three.idlePerSecond.statements)}/s`,
        `${fixed(one.idlePerSecond.statements)}/s`,
        three.idlePerSecond.statements / one.idlePerSecond.statements,
      ),
      row(
        'scale: connections held idle, 3 nodes vs 1',
        String(three.connections),
        String(one.connections),
        three.connections / one.connections,
      ),
      row(
        'scale: connections held at most under load, 3 nodes vs 1',
        String(three.peakConnections),
        String(one.peakConnections),
        three.peakConnections / one.peakConnections,
      ),
    );
    for (const operation of operations) {
      const ours = three.perRequest.get(operation.name);
      const baseline = one.perRequest.get(operation.name);
      if (ours === undefined || baseline === undefined) continue;
      const pair = (label: string, o: number, b: number, unit: string, digits = 1) =>
        row(
          `scale: ${operation.name}, ${label}, 3 nodes vs 1`,
          `${fixed(o, digits)}${unit}`,
          `${fixed(b, digits)}${unit}`,
          o / b,
        );
      rows.push(
        pair('statements/request', ours.counters.statements, baseline.counters.statements, ''),
        pair('commits/request', ours.counters.commits, baseline.counters.commits, ''),
        pair('rows written/request', ours.counters.rowsWritten, baseline.counters.rowsWritten, ''),
        pair('p50', ours.load.p50, baseline.load.p50, ' ms', 2),
        pair('req/s', ours.load.rps, baseline.load.rps, ' req/s', 0),
      );
    }
    for (const child of children.toReversed()) await stop(child);
    const alone = await pgbench(postgres);
    rows.push(
      row(
        'scale: PostgreSQL alone (pgbench, 8 clients), select-only vs simple-update tx/s',
        `${Math.round(alone.selects)} tx/s`,
        `${Math.round(alone.writes)} tx/s`,
        alone.selects / alone.writes,
      ),
    );
  } finally {
    await stats.end().catch(() => undefined);
    for (const child of children.reverse()) await stop(child).catch(() => undefined);
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
