// Realtime latency, each against a bare `ws` server in the same run:
//
// - "broadcast to N": a Function's broadcast (`ctx.realtime.broadcast`, entered where the
//   runtime route enters it) until each of N subscribers' sockets has it: the message is written
//   to realtime_messages, announced by NOTIFY, read back and fanned out. The baseline is a bare
//   `ws` server sending the same payload to N clients. Latencies are per subscriber, over every
//   round; p50 and p99.
// - "RLS change to 100": an insert through the data service until each of 100 subscribers (100
//   users, each checked under the table's RLS as itself) has the change. The baseline is the same
//   bare broadcast to 100.
//
// Goals (issue): broadcast p50 at most 2x the bare server at 1,000 subscribers; RLS-checked
// changes p99 under 100 ms at 100 subscribers.
//
// As a suite of bench/run.ts: `realtime: () => import('./realtime/realtime.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/realtime/realtime.ts`.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { startBroker } from '../../packages/broker/src/app/start-broker.ts';
import { anonymousCaller, userCaller } from '../../packages/broker/src/kernel/caller.ts';
import { numbersFromEnv, type Row } from '../report.ts';

const SIZES = numbersFromEnv('REALTIME_BENCH_SIZES', '1,100,1000');
const ROUNDS = Number(process.env.REALTIME_BENCH_ROUNDS ?? 30);
const PAYLOAD = { text: 'x'.repeat(200), n: 0 };

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Sockets whose next message each resolves a promise with its arrival time. */
class Receivers {
  readonly sockets: WebSocket[] = [];
  #waiting: ((at: number) => void)[] = [];

  async open(count: number, url: string, headers: () => Record<string, string>): Promise<void> {
    for (let i = 0; i < count; i++) {
      const ws = new WebSocket(url, { headers: headers() });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const index = this.sockets.length;
      ws.on('message', (data) => {
        const text = String(data);
        if (text.includes('"type":"reply"')) return;
        this.#waiting[index]?.(performance.now());
      });
      this.sockets.push(ws);
    }
  }

  /** Arrival times of the next message at every socket. */
  next(): Promise<number[]> {
    return Promise.all(
      this.sockets.map(
        (_ws, index) =>
          new Promise<number>((resolve) => {
            this.#waiting[index] = resolve;
          }),
      ),
    );
  }

  /** Sends a frame from each socket and waits for its reply. */
  async request(frame: (index: number) => Record<string, unknown>): Promise<void> {
    await Promise.all(
      this.sockets.map(
        (ws, index) =>
          new Promise<void>((resolve) => {
            const onMessage = (data: WebSocket.RawData) => {
              if (String(data).includes('"type":"reply"')) {
                ws.off('message', onMessage);
                resolve();
              }
            };
            ws.on('message', onMessage);
            ws.send(JSON.stringify({ ...frame(index), ref: 'r' }));
          }),
      ),
    );
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
  }
}

async function measure(rounds: number, receivers: Receivers, send: () => Promise<unknown>) {
  const latencies: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const arrived = receivers.next();
    const start = performance.now();
    await send();
    for (const at of await arrived) latencies.push(at - start);
  }
  return latencies.sort((a, b) => a - b);
}

/** Runs the realtime benchmark and answers its rows. */
export async function run(): Promise<Row[]> {
  const appDir = await mkdtemp(join(tmpdir(), 'realtime-bench-'));
  await mkdir(join(appDir, 'migrations'));
  await writeFile(
    join(appDir, 'migrations', '001_notes.sql'),
    `create table notes (id uuid primary key default gen_random_uuid(),
       owner_id uuid not null default auth.uid(), title text not null, shared boolean not null default false);
     alter table notes enable row level security;
     create policy notes_read on notes for select to authenticated using (owner_id = (select auth.uid()) or shared);
     create policy notes_write on notes for all to authenticated
       using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));`,
  );
  const broker = await startBroker({
    appDir,
    sdkVersion: '2.6.0',
    inMemory: true,
    logWriter: () => undefined,
    authenticate: async (request) => {
      const id = request.headers.get('x-user');
      return id ? userCaller(id) : anonymousCaller;
    },
    realtime: {
      channels: { 'bench:*': { join: 'public', send: 'functions' } },
      tables: ['notes'],
    },
  });
  const bare = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => bare.once('listening', resolve));
  const bareUrl = `ws://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  const ourUrl = `${broker.server.url.replace(/^http/, 'ws')}/_platform/api/realtime`;
  const rows: Row[] = [];
  const bareBroadcast = async () => {
    const text = JSON.stringify({
      type: 'broadcast',
      channel: 'bench:1',
      event: 'e',
      payload: PAYLOAD,
    });
    for (const client of bare.clients) client.send(text);
  };
  try {
    for (const size of SIZES) {
      const ours = new Receivers();
      const theirs = new Receivers();
      await ours.open(size, ourUrl, () => ({ 'x-user': randomUUID() }));
      await theirs.open(size, bareUrl, () => ({}));
      await ours.request(() => ({ type: 'join', channel: 'bench:1' }));
      const rounds = size >= 1000 ? Math.max(5, Math.round(ROUNDS / 3)) : ROUNDS;
      const send = () => broker.realtime.broadcast('bench:1', 'e', PAYLOAD);
      await measure(3, ours, send);
      await measure(3, theirs, bareBroadcast);
      const o = await measure(rounds, ours, send);
      const b = await measure(rounds, theirs, bareBroadcast);
      const label = size.toLocaleString('en-US');
      const p50 = percentile(o, 0.5);
      const bareP50 = percentile(b, 0.5);
      rows.push({
        name: `realtime: broadcast p50 to ${label} (ours vs bare ws)`,
        ours: ms(p50),
        baseline: ms(bareP50),
        ratio: p50 / bareP50,
        ...(size === 1000 ? { goal: { text: 'at most 2x', met: p50 <= 2 * bareP50 } } : {}),
      });
      rows.push({
        name: `realtime: broadcast p99 to ${label} (ours vs bare ws)`,
        ours: ms(percentile(o, 0.99)),
        baseline: ms(percentile(b, 0.99)),
        ratio: percentile(o, 0.99) / percentile(b, 0.99),
      });
      ours.close();
      theirs.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // Database changes under RLS: 100 users, each subscribed as itself.
    const users = Array.from({ length: 100 }, () => randomUUID());
    const ours = new Receivers();
    let next = 0;
    await ours.open(100, ourUrl, () => ({ 'x-user': users[next++]! }));
    await ours.request((i) => ({ type: 'subscribe', id: `s${i}`, table: 'notes' }));
    const theirs = new Receivers();
    await theirs.open(100, bareUrl, () => ({}));
    const writer = userCaller(users[0]!);
    const insert = () =>
      broker.data.create(writer, 'notes', { title: 'shared note', shared: true });
    await measure(3, ours, insert);
    const o = await measure(ROUNDS, ours, insert);
    const b = await measure(ROUNDS, theirs, bareBroadcast);
    const p99 = percentile(o, 0.99);
    rows.push({
      name: 'realtime: RLS-checked change p50 to 100 (ours vs bare ws broadcast)',
      ours: ms(percentile(o, 0.5)),
      baseline: ms(percentile(b, 0.5)),
      ratio: percentile(o, 0.5) / percentile(b, 0.5),
    });
    rows.push({
      name: 'realtime: RLS-checked change p99 to 100 (ours vs bare ws broadcast)',
      ours: ms(p99),
      baseline: ms(percentile(b, 0.99)),
      ratio: p99 / percentile(b, 0.99),
      goal: { text: 'p99 under 100 ms', met: p99 < 100 },
    });
    ours.close();
    theirs.close();
    return rows;
  } finally {
    bare.close();
    await broker.close();
    await rm(appDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
