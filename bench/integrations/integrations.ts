// Cost of an integration call under `platform dev`, on examples/sales-crm (PGlite, real Deno
// Functions, HTTP on loopback). Sequential calls of the sales app's route, which calls
// `contacts.findByEmail` through its `crm` slot:
// - fake: the call answers the contract's fake; baseline: a no-op Function route of the same app.
// - live: the provider's operation Function runs for the slot's binding (authority checks,
//   sealed credentials opened, the provider's Deno process); baseline: the fake call plus the
//   provider Function invoked directly for its test connection (`platform invoke`'s route), the
//   two hops a live call makes.
// p50 of INTEGRATIONS_BENCH_CALLS calls each (default 300), alternated rounds
// (INTEGRATIONS_BENCH_ROUNDS, default 3), median of the per-round p50s.
// - concurrent: INTEGRATIONS_BENCH_CALLERS callers at once (default 100, one connection each)
//   for INTEGRATIONS_BENCH_SECONDS (default 3) or 20,000 calls, whichever ends first, of the fake
//   call against the no-op Function, from a load client in a process of its own
//   (bench/broker/load-client.ts), alternated rounds: the median of the rounds' own throughput
//   ratios, and of each side's figures; and the broker's resident memory before and after.
//
// As a suite of bench/run.ts: `integrations: () => import('./integrations/integrations.ts')`.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median, ops, type Row, row } from '../report.ts';
import { startSalesCrm } from './sales-crm.ts';

const CALLS = Number(process.env.INTEGRATIONS_BENCH_CALLS ?? 300);
const ROUNDS = Number(process.env.INTEGRATIONS_BENCH_ROUNDS ?? 3);
const CALLERS = Number(process.env.INTEGRATIONS_BENCH_CALLERS ?? 100);
const SECONDS = Number(process.env.INTEGRATIONS_BENCH_SECONDS ?? 3);
/** The goal of the concurrent fake call: at least half the no-op Function's throughput. */
const CONCURRENT_GOAL = 0.5;

const noop = `import { defineFunction, s } from '@platform/server';
export default defineFunction({ input: s.object({ email: s.string() }), handler: () => ({}) });
`;

async function p50(call: () => Promise<Response>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const response = await call();
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`bench call answered ${response.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

interface Load {
  readonly p50: number;
  readonly p99: number;
  readonly rps: number;
}

const execFileAsync = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const loadClient = fileURLToPath(new URL('../broker/load-client.ts', import.meta.url));

/** CALLERS concurrent callers of `path` from a client process of its own. */
async function concurrent(port: number, path: string, body: string): Promise<Load> {
  const plan = {
    port,
    path,
    body,
    callers: CALLERS,
    sockets: CALLERS,
    calls: 20_000,
    seconds: SECONDS,
    warmup: CALLERS * 5,
  };
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--conditions=@platform/source', loadClient, JSON.stringify(plan)],
    { cwd: repo },
  );
  return JSON.parse(stdout) as Load;
}

/** Runs the suite and answers its rows. */
export async function run(): Promise<Row[]> {
  const org = await startSalesCrm({
    name: 'integrations',
    key: 'crm_bench_key',
    // A no-op Function route beside the lookup, the fake call's baseline.
    prepare: async (root) => {
      const sales = join(root, 'sales');
      const yaml = await readFile(join(sales, 'platform.yaml'), 'utf8');
      await writeFile(
        join(sales, 'platform.yaml'),
        yaml.replace(
          'functions:\n',
          'functions:\n  - name: noop\n    entrypoint: functions/noop/index.ts\n    access: public\n    route:\n      path: /api/noop\n      methods: [POST]\n',
        ),
      );
      await mkdir(join(sales, 'functions/noop'), { recursive: true });
      await writeFile(join(sales, 'functions/noop/index.ts'), noop);
    },
  });
  const { ws } = org;
  const owner = (path: string, method: string, body: unknown) =>
    org.owner(path, { method, body: JSON.stringify(body) });
  try {
    const chosen = await owner('/v1/apps/crm/dev/integrations', 'PUT', {
      testConnection: org.connectionId,
      actingAs: 'ada@example.com',
    });
    if (!chosen.ok) throw new Error(`test connection: ${chosen.status} ${await chosen.text()}`);
    const salesUrl = `http://127.0.0.1:${ws.app('sales')!.port}`;
    const crmUrl = `http://127.0.0.1:${ws.app('crm')!.port}`;
    const post =
      (to: string, body: unknown, headers: Record<string, string> = {}) =>
      () =>
        fetch(to, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
    const email = { email: 'grace@example.com' };
    const lookup = post(`${salesUrl}/api/customers/lookup`, email);
    const noopCall = post(`${salesUrl}/api/noop`, email);
    const direct = post(
      `${crmUrl}/v1/apps/crm/invoke/findContact`,
      { input: email },
      { authorization: `Bearer ${ws.devToken}` },
    );
    const mode = (m: 'live' | 'fake') =>
      owner('/v1/apps/sales/dev/integrations', 'PUT', { slot: 'crm', mode: m });
    const figures = {
      noop: [] as number[],
      fake: [] as number[],
      live: [] as number[],
      direct: [] as number[],
    };
    // Warm every path once (bundles, processes, connections).
    await p50(noopCall);
    for (let round = 0; round < ROUNDS; round++) {
      await mode('fake');
      figures.noop.push(await p50(noopCall));
      figures.fake.push(await p50(lookup));
      await mode('live');
      figures.live.push(await p50(lookup));
      figures.direct.push(await p50(direct));
    }
    // Concurrent callers, the fake call against the no-op Function, alternated.
    await mode('fake');
    const body = JSON.stringify(email);
    const salesPort = ws.app('sales')!.port;
    const loads = { noop: [] as Load[], fake: [] as Load[] };
    const rssBefore = process.memoryUsage().rss;
    for (let round = 0; round < ROUNDS; round++) {
      loads.noop.push(await concurrent(salesPort, '/api/noop', body));
      loads.fake.push(await concurrent(salesPort, '/api/customers/lookup', body));
    }
    const rssAfter = process.memoryUsage().rss;
    const of = (runs: Load[], key: keyof Load) => median(runs.map((one) => one[key]));
    // Each round's own ratio: the machine's load moves both sides of a round alike.
    const throughputRatio = median(loads.fake.map((one, i) => one.rps / loads.noop[i]!.rps));
    const noopP50 = median(figures.noop);
    const fakeP50 = median(figures.fake);
    const liveP50 = median(figures.live);
    const twoHops = fakeP50 + median(figures.direct);
    return [
      row(
        'integration call, fake (p50, vs a no-op Function)',
        ms(fakeP50),
        ms(noopP50),
        fakeP50 / noopP50,
      ),
      row(
        'integration call, live (p50, vs fake call + direct provider invoke)',
        ms(liveP50),
        ms(twoHops),
        liveP50 / twoHops,
      ),
      row(
        `integration call, fake, ${CALLERS} callers (calls/s, vs a no-op Function)`,
        ops(of(loads.fake, 'rps')),
        ops(of(loads.noop, 'rps')),
        throughputRatio,
        { text: `ratio >= ${CONCURRENT_GOAL}`, met: throughputRatio >= CONCURRENT_GOAL },
      ),
      row(
        `integration call, fake, ${CALLERS} callers (p50, vs a no-op Function)`,
        ms(of(loads.fake, 'p50')),
        ms(of(loads.noop, 'p50')),
        of(loads.fake, 'p50') / of(loads.noop, 'p50'),
      ),
      row(
        `integration call, fake, ${CALLERS} callers (p99, vs a no-op Function)`,
        ms(of(loads.fake, 'p99')),
        ms(of(loads.noop, 'p99')),
        of(loads.fake, 'p99') / of(loads.noop, 'p99'),
      ),
      row(
        'broker memory after the concurrent rounds (vs before them)',
        mb(rssAfter),
        mb(rssBefore),
        rssAfter / rssBefore,
      ),
    ];
  } finally {
    await org.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
