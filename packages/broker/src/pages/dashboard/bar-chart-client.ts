// The console's one chart, in the browser: stacked bars per minute drawn as SVG elements (no
// library; a few hundred bytes). Every chart of the console draws with it, so they look and
// read alike.

const SVG = 'http://www.w3.org/2000/svg';

/** One stacked part of every bar: its counts per minute, oldest first, and its name. */
export interface ChartSeries {
  /** Shown to screen readers with its total, and the colour's class (`c-<name>`). */
  readonly name: string;
  readonly values: readonly number[];
}

/**
 * Bars of the series stacked in the order given (the first at the bottom), scaled to the
 * busiest minute. The chart's accessible name says the hour's total of `noun` and each
 * series' share, since the colours alone tell nothing to a screen reader.
 */
export function barChart(series: readonly ChartSeries[], noun: string): SVGSVGElement {
  const width = 600;
  const height = 80;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'chart');
  svg.setAttribute('role', 'img');
  const minutes = Math.max(0, ...series.map((s) => s.values.length));
  const stacks = Array.from({ length: minutes }, (_, i) =>
    series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0),
  );
  const totals = series.map((s) => s.values.reduce((a, b) => a + b, 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const parts = series.map((s, i) => `${totals[i]} ${s.name.replace('_', ' ')}`).join(', ');
  svg.setAttribute(
    'aria-label',
    `${total} ${noun} in the last hour, per minute${series.length > 1 ? `: ${parts}` : ''}`,
  );
  const most = Math.max(1, ...stacks);
  const bar = width / Math.max(1, minutes);
  const scale = (value: number) => (value / most) * (height - 4);
  for (let i = 0; i < minutes; i++) {
    let base = 0;
    for (const s of series) {
      const value = s.values[i] ?? 0;
      if (value <= 0) continue;
      const rect = document.createElementNS(SVG, 'rect');
      rect.setAttribute('x', String(i * bar + 1));
      rect.setAttribute('width', String(Math.max(1, bar - 2)));
      rect.setAttribute('y', String(height - scale(base) - scale(value)));
      rect.setAttribute('height', String(scale(value)));
      rect.setAttribute('class', `c-${s.name}`);
      svg.append(rect);
      base += value;
    }
  }
  return svg;
}

/** The series of a per-minute answer (`per-minute.ts`), in `order`. */
export const seriesOf = (
  perMinute: Readonly<Record<string, readonly number[]>>,
  order: readonly string[],
): ChartSeries[] => order.map((name) => ({ name, values: perMinute[name] ?? [] }));
