// The load generator of bench/broker/functions.ts and bench/integrations/integrations.ts, run in
// a process of its own like a browser: its CPU is not charged to the server it measures. It POSTs
// one body over a keep-alive `node:http` agent, `callers` calls at a time, after a warm-up, and
// prints the figures as JSON. With `seconds`, a run also stops when that time is up, whichever
// comes first; `sockets` (default 32) bounds the agent's connections, so more callers than
// sockets wait for one as a browser's requests do. With `host`, every request carries that Host
// header (an app address of a Host-routed service); `headers` go with every request; the answer
// also counts the measured calls.
//
// `node --import tsx load-client.ts '{"port":4310,"path":"/","body":"{}","callers":1,"calls":3000}'`
import { Agent } from 'node:http';
import { postJson } from './post-json.ts';

interface Plan {
  readonly port: number;
  readonly path: string;
  readonly body: string;
  readonly callers: number;
  readonly calls: number;
  readonly seconds?: number;
  readonly sockets?: number;
  /** Warm-up calls before the measured ones (default: `calls`, at most 2,000). */
  readonly warmup?: number;
  /** The Host header. @default `127.0.0.1:<port>` */
  readonly host?: string;
  /** More headers of every request (an `authorization`). @default none */
  readonly headers?: Readonly<Record<string, string>>;
}

const plan = JSON.parse(process.argv[2] ?? '') as Plan;
const agent = new Agent({ keepAlive: true, maxSockets: plan.sockets ?? 32 });
const post = () => postJson(plan.port, plan.path, plan.body, agent, plan.host, plan.headers);

async function measure(callers: number, calls: number, seconds = Infinity): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next++ < calls && performance.now() < until) {
        const started = performance.now();
        await post();
        times.push(performance.now() - started);
      }
    }),
  );
  return times;
}

// The client and the server warm up (JIT, pools, caches) here, not in the figures.
await measure(plan.callers, plan.warmup ?? Math.min(2000, plan.calls), plan.seconds);
const started = performance.now();
const times = await measure(plan.callers, plan.calls, plan.seconds);
const seconds = (performance.now() - started) / 1000;
times.sort((a, b) => a - b);
const quantile = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
console.log(
  JSON.stringify({
    p50: quantile(0.5),
    p99: quantile(0.99),
    rps: times.length / seconds,
    calls: times.length,
  }),
);
agent.destroy();
