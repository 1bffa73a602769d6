// The dashboard's AI calls, in the browser.

import { barChart, seriesOf } from '../pages/dashboard/bar-chart-client.ts';
import {
  $,
  get,
  localTime,
  row,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { PerMinute } from '../pages/dashboard/per-minute.ts';

/** One AI call as the broker API lists it (no model or key; prompt and output when opted in). */
interface AiCall {
  at: string;
  functionName: string;
  kind: string;
  durationMs: number;
  outcome: string;
  content?: { input: string; output?: string };
}

// The prompt and output under the call's row, only when the developer opted in locally.
function contentRow(content: NonNullable<AiCall['content']>): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const td = document.createElement('td');
  td.colSpan = 5;
  td.className = 'ai-content';
  for (const [label, text] of [
    ['Prompt', content.input],
    ['Output', content.output],
  ] as const) {
    if (text === undefined) continue;
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = label;
    const pre = document.createElement('pre');
    pre.textContent = text;
    details.append(summary, pre);
    td.append(details);
  }
  tr.append(td);
  return tr;
}

async function loadAiCalls(api: Readonly<Record<'calls' | 'perMinute', string>>): Promise<void> {
  const [{ calls }, minutes] = await Promise.all([
    get<{ calls: AiCall[] }>(api.calls, { limit: '50' }),
    get<PerMinute>(api.perMinute, {}),
  ]);
  $('ai-chart').replaceChildren(
    barChart(seriesOf(minutes.perMinute, ['ok', 'failed']), 'AI calls'),
  );
  $('ai-calls')
    .querySelector('tbody')
    ?.replaceChildren(
      ...calls.flatMap((call) => [
        row(
          [localTime(call.at), call.functionName, call.kind, `${call.durationMs} ms`, call.outcome],
          call.outcome === 'ok' ? {} : { 4: 'error' },
        ),
        ...(call.content ? [contentRow(call.content)] : []),
      ]),
    );
}

export default { open: loadAiCalls, refresh: loadAiCalls } satisfies SectionScript<
  'calls' | 'perMinute'
>;
