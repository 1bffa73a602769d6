import { escapeHtml } from '../../kernel/escape-html.ts';

/**
 * The markup of a console chart: the element `id` its script draws into with `barChart`
 * (`bar-chart-client.ts`), and a caption with a key of the series' colours, in the
 * order they stack. The chart's colours live in the console's one stylesheet (`c-<series>`).
 */
export function chartFigure(id: string, caption: string, series: readonly string[]): string {
  const key =
    series.length < 2
      ? ''
      : ` ${series.map((name) => `<span class="key c-${escapeHtml(name)}"></span>${escapeHtml(name.replace('_', ' '))}`).join(' ')}`;
  return `<figure class="chart-figure"><div id="${escapeHtml(id)}"></div><figcaption class="muted">${escapeHtml(caption)}${key}</figcaption></figure>`;
}
