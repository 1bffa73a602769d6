import type { HtmlEscapedString } from 'hono/utils/html';
import { markup } from '../page-shell.ts';

/**
 * The markup of a console chart: the element `id` its script draws into with `barChart`
 * (`bar-chart-client.ts`), and a caption with a key of the series' colours, in the
 * order they stack. The chart's colours live in the console's one stylesheet (`c-<series>`).
 */
export function chartFigure(
  id: string,
  caption: string,
  series: readonly string[],
): HtmlEscapedString {
  const key =
    series.length < 2
      ? ''
      : series.map((name) => markup` <span class="key c-${name}"></span>${name.replace('_', ' ')}`);
  return markup`<figure class="chart-figure"><div id="${id}"></div><figcaption class="muted">${caption}${key}</figcaption></figure>`;
}
