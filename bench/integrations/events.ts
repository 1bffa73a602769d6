// Latency of an integration event served as production (`platform dev --environment
// production`), on examples/sales-crm (PGlite, real Deno Functions, HTTP on loopback): a POST to
// the crm connection's webhook URL, whose Function emits `contact.updated`, until the sales app's
// events Function has stored it (its row is read from the sales database every millisecond).
// Baseline, the same work without the durable delivery: the same webhook POST, then the events
// Function invoked directly (`platform invoke`'s route) with the payload a delivery carries.
// p50 of EVENTS_BENCH_EVENTS events each (default 100), alternated rounds
// (EVENTS_BENCH_ROUNDS, default 3), median of the per-round p50s.
//
// As a suite of bench/run.ts: `'integration-events': () => import('./integrations/events.ts')`.
import { median, type Row, row } from '../report.ts';
import { startSalesCrm } from './sales-crm.ts';

const EVENTS = Number(process.env.EVENTS_BENCH_EVENTS ?? 100);
const ROUNDS = Number(process.env.EVENTS_BENCH_ROUNDS ?? 3);
const KEY = 'crm_bench_key';

const ms = (value: number) => `${value.toFixed(2)} ms`;

async function p50(once: (i: number) => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const started = performance.now();
    await once(i);
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Runs the suite and answers its rows. */
export async function run(): Promise<Row[]> {
  const org = await startSalesCrm({ name: 'events', key: KEY, environment: 'production' });
  const { ws, owner } = org;
  try {
    const { url: webhook } = (await (
      await owner(`/v1/apps/crm/connections/${org.connectionId}/webhook?actingAs=ada@example.com`)
    ).json()) as { url: string };
    const [binding] = (
      (await (await owner('/v1/apps/sales/bindings')).json()) as {
        bindings: { id: string }[];
      }
    ).bindings;
    const sales = ws.app('sales')!;
    const post = async (event: string) => {
      const answer = await fetch(webhook, {
        method: 'POST',
        headers: { 'x-crm-key': KEY, 'x-crm-event': event },
        body: '{"email":"grace@example.com"}',
      });
      if (!answer.ok) throw new Error(`the webhook answered ${answer.status}`);
      await answer.arrayBuffer();
    };
    const stored = async (id: string) =>
      (await sales.broker.db.query('SELECT 1 FROM crm_events WHERE id = $1', [id])).rows.length > 0;
    const count = async () =>
      Number(
        (await sales.broker.db.query<{ n: string }>('SELECT count(*) AS n FROM crm_events')).rows[0]
          ?.n,
      );

    // Delivered: the webhook emits (its receivedAt is the event id), then wait for the new row.
    const delivered = async () => {
      const before = await count();
      await post('contact.updated');
      while ((await count()) === before) await new Promise((r) => setTimeout(r, 1));
    };
    // Baseline: a webhook that emits nothing (no dot in its name), then the handler directly.
    let direct = 0;
    const twoHops = async () => {
      await post('ping');
      const id = `direct-${direct++}`;
      const answer = await fetch(`http://127.0.0.1:${sales.port}/v1/apps/sales/invoke/onCrmEvent`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          input: {
            id,
            type: 'contact.updated',
            occurredAt: new Date().toISOString(),
            integration: 'crm',
            provider: 'crm',
            bindingId: binding!.id,
            data: { body: '{"email":"grace@example.com"}' },
          },
        }),
      });
      if (!answer.ok) throw new Error(`the handler answered ${answer.status}`);
      if (!(await stored(id))) throw new Error('the handler stored nothing');
    };
    await delivered();
    await twoHops();
    const figures = { delivered: [] as number[], direct: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      figures.delivered.push(await p50(delivered));
      figures.direct.push(await p50(twoHops));
    }
    const ours = median(figures.delivered);
    const base = median(figures.direct);
    return [
      row(
        'integration event, webhook emit to handler done (p50, vs webhook + direct handler call)',
        ms(ours),
        ms(base),
        ours / base,
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
