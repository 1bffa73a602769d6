// The console's Overview, in the browser: the hour's counts and a bar chart of calls per
// minute, failed ones stacked on the others.

import { barChart } from '../pages/dashboard/bar-chart-client.ts';
import { $, get, type SectionScript } from '../pages/dashboard/dashboard-client-kit.ts';
import type { CallsOverview } from './function-calls.ts';

interface Overview {
  functions: number;
  calls: CallsOverview;
  requests: { total: number; errors: number };
}

const ms = (value: number | null) => (value === null ? '-' : `${value} ms`);

async function load(api: { readonly overview: string }): Promise<void> {
  const o = await get<Overview>(api.overview, {});
  $('ov-functions').textContent = String(o.functions);
  $('ov-calls').textContent = String(o.calls.total);
  $('ov-failed').textContent = String(o.calls.failed);
  $('ov-p50').textContent = ms(o.calls.p50);
  $('ov-p99').textContent = ms(o.calls.p99);
  $('ov-requests').textContent = String(o.requests.total);
  $('ov-errors').textContent = String(o.requests.errors);
  const failed = o.calls.failedPerMinute;
  $('ov-chart').replaceChildren(
    barChart(
      [
        { name: 'ok', values: o.calls.perMinute.map((n, i) => n - (failed[i] ?? 0)) },
        { name: 'failed', values: failed },
      ],
      'Function calls',
    ),
  );
}

export default { open: load, refresh: load } satisfies SectionScript<'overview'>;
