// Web Push send cost: `PushService.send` (look up the user's subscriptions, encrypt with
// aes128gcm per RFC 8291, sign the VAPID JWT per RFC 8292 with web-push, POST, count) against
// the bare library call in the same run (web-push's `generateRequestDetails` for a known
// subscription, then the same `fetch`). Both deliver to the same receiver: the broker's local
// push service on loopback, which verifies the JWT, decrypts and stores every message, so the
// ratio is what the broker adds around the library.
//
// - "send p50": one notification to a user with one device, sequentially (PUSH_BENCH_SINGLE).
// - "1,000 to 100 subscriptions": ten sends, each to all 100 users (one device each), so 1,000
//   messages; the baseline sends the same 1,000 messages in the same ten waves of 100.
//
// As a suite of bench/run.ts: `push: () => import('./push/push.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/push/push.ts`.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webpush from 'web-push';
import { startBroker } from '../../packages/broker/src/app/start-broker.ts';
import type { StoredSubscription } from '../../packages/broker/src/push/push-subscriptions.ts';
import { loadVapidKeys } from '../../packages/broker/src/push/vapid-keys.ts';
import { type Row, row } from '../report.ts';

const SINGLE = Number(process.env.PUSH_BENCH_SINGLE ?? 200);
const DEVICES = 100;
const WAVES = 10;

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')} msg/s`;

/** Runs the push benchmark and answers its rows. */
export async function run(): Promise<Row[]> {
  const appDir = await mkdtemp(join(tmpdir(), 'push-bench-'));
  const broker = await startBroker({
    appDir,
    sdkVersion: '2.6.0',
    inMemory: true,
    logWriter: () => undefined,
  });
  try {
    const push = broker.push;
    const vapid = await loadVapidKeys(join(appDir, '.platform'));
    const users = Array.from({ length: DEVICES }, () => randomUUID());
    const devices: StoredSubscription[] = [];
    for (const user of users) {
      await push.subscribeLocal(user);
      devices.push((await push.subscriptions.ofUsers([user]))[0]!);
    }
    const payload = Buffer.from(JSON.stringify({ title: 'Reminder', body: 'Buy milk', url: '/' }));
    const bare = async (device: StoredSubscription) => {
      const request = webpush.generateRequestDetails(device, payload, {
        vapidDetails: { subject: 'mailto:push@localhost.invalid', ...vapid },
        TTL: 86_400,
        contentEncoding: 'aes128gcm',
      });
      const response = await fetch(request.endpoint, {
        method: 'POST',
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([k, v]) => [k, String(v)]),
        ),
        body: new Uint8Array(request.body as Buffer),
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`push service answered ${response.status}`);
    };
    const ours = async (user: string | string[]) => {
      await push.send({ to: user, title: 'Reminder', body: 'Buy milk', url: '/' });
    };

    // Warm-up: JIT, connection pools, the database's caches.
    for (let i = 0; i < 20; i++) {
      await ours(users[i % DEVICES]!);
      await bare(devices[i % DEVICES]!);
    }

    // The two sides alternate, one send (or one wave) each in turn, so that drift on a shared
    // machine and the growing table of received messages weigh on both alike.
    const oursTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < SINGLE; i++) {
      let start = performance.now();
      await ours(users[i % DEVICES]!);
      oursTimes.push(performance.now() - start);
      start = performance.now();
      await bare(devices[i % DEVICES]!);
      bareTimes.push(performance.now() - start);
    }
    const p50 = (times: number[]) =>
      percentile(
        times.sort((a, b) => a - b),
        0.5,
      );
    const oursP50 = p50(oursTimes);
    const bareP50 = p50(bareTimes);

    let oursMs = 0;
    let bareMs = 0;
    for (let w = 0; w < WAVES; w++) {
      let start = performance.now();
      await ours(users);
      oursMs += performance.now() - start;
      start = performance.now();
      await Promise.all(devices.map(bare));
      bareMs += performance.now() - start;
    }
    const oursRate = (DEVICES * WAVES) / (oursMs / 1000);
    const bareRate = (DEVICES * WAVES) / (bareMs / 1000);

    return [
      row(
        'push: send p50, 1 device (ours vs bare web-push)',
        ms(oursP50),
        ms(bareP50),
        oursP50 / bareP50,
      ),
      row(
        'push: 1,000 notifications to 100 subscriptions',
        rate(oursRate),
        rate(bareRate),
        oursRate / bareRate,
      ),
    ];
  } finally {
    await broker.close();
    await rm(appDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
