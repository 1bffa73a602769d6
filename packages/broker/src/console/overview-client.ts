// The console's Overview, in the browser: the hour's counts and a bar chart of calls per
// minute, drawn as SVG elements (no library; a few hundred bytes).
import { $, get, type SectionScript } from '../pages/dashboard/dashboard-client-kit.ts';
import type { CallsOverview } from './function-calls.ts';

interface Overview {
  functions: number;
  calls: CallsOverview;
  requests: { total: number; errors: number };
}

const SVG = 'http://www.w3.org/2000/svg';
const ms = (value: number | null) => (value === null ? '-' : `${value} ms`);

/** Bars of `counts` (failed part in red), scaled to the busiest minute. */
function chart(counts: readonly number[], failed: readonly number[]): SVGSVGElement {
  const width = 600;
  const height = 80;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'chart');
  svg.setAttribute('role', 'img');
  const total = counts.reduce((a, b) => a + b, 0);
  svg.setAttribute('aria-label', `${total} calls in the last hour, per minute`);
  const most = Math.max(1, ...counts);
  const bar = width / counts.length;
  counts.forEach((count, i) => {
    const bad = failed[i] ?? 0;
    for (const [value, base, cls] of [
      [count - bad, 0, 'ok'],
      [bad, count - bad, 'failed'],
    ] as const) {
      if (value <= 0) continue;
      const rect = document.createElementNS(SVG, 'rect');
      const h = (value / most) * (height - 4);
      rect.setAttribute('x', String(i * bar + 1));
      rect.setAttribute('width', String(Math.max(1, bar - 2)));
      rect.setAttribute('y', String(height - (base / most) * (height - 4) - h));
      rect.setAttribute('height', String(h));
      rect.setAttribute('class', cls);
      svg.append(rect);
    }
  });
  return svg;
}

async function load(api: { readonly overview: string }): Promise<void> {
  const o = await get<Overview>(api.overview, {});
  $('ov-functions').textContent = String(o.functions);
  $('ov-calls').textContent = String(o.calls.total);
  $('ov-failed').textContent = String(o.calls.failed);
  $('ov-p50').textContent = ms(o.calls.p50);
  $('ov-p99').textContent = ms(o.calls.p99);
  $('ov-requests').textContent = String(o.requests.total);
  $('ov-errors').textContent = String(o.requests.errors);
  $('ov-chart').replaceChildren(chart(o.calls.perMinute, o.calls.failedPerMinute));
}

export default { open: load, refresh: load } satisfies SectionScript<'overview'>;
