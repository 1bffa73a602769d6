// The console's Logs, in the browser: the kept lines under the filters, then a live tail
// (server-sent events) that appends each new matching line while the box is ticked. A request
// id is a button that narrows the list to that request's lines.

import type { KeptLine } from '../logs/log-sink.ts';
import {
  $,
  get,
  localTime,
  pad,
  run,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';

type Api = { readonly logs: string; readonly stream: string };

/** Lines shown at most; older ones leave the table as new ones arrive. */
const SHOWN = 500;
let tail: EventSource | undefined;
let filter: Record<string, string> = {};

/** A `datetime-local` value (local time) as an ISO instant. */
function iso(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

const levelOf = (line: KeptLine) =>
  line.kind === 'log'
    ? line.level
    : line.status >= 500
      ? 'error'
      : line.status >= 400
        ? 'warn'
        : 'info';

function text(line: KeptLine): string {
  if (line.kind === 'request') {
    return `${line.method} ${line.path} ${line.status} ${line.durationMs} ms`;
  }
  const fields =
    line.fields && Object.keys(line.fields).length > 0 ? ` ${JSON.stringify(line.fields)}` : '';
  return `${line.message}${fields}`;
}

function lineRow(line: KeptLine, api: Api): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const level = levelOf(line);
  const d = new Date(line.at);
  const cells = [
    `${localTime(line.at)}.${pad(d.getMilliseconds(), 3)}`,
    line.kind === 'request' ? `${level} (request)` : level,
    line.functionName ?? '',
    text(line),
  ];
  for (const [i, value] of cells.entries()) {
    const td = document.createElement('td');
    td.textContent = value;
    if (i === 1) td.className = `level-${level}`;
    tr.append(td);
  }
  const td = document.createElement('td');
  if (line.requestId) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = line.requestId;
    button.setAttribute('aria-label', `Show every line of request ${line.requestId}`);
    button.addEventListener(
      'click',
      run(async () => {
        $<HTMLInputElement>('log-request').value = line.requestId ?? '';
        await apply(api);
      }),
    );
    td.append(button);
  }
  tr.append(td);
  tr.className = `line-${line.kind}`;
  return tr;
}

function readFilter(): void {
  const entries: [string, string | undefined][] = [
    ['function', $<HTMLInputElement>('log-function').value.trim()],
    ['level', $<HTMLSelectElement>('log-level').value],
    ['q', $<HTMLInputElement>('log-text').value],
    ['requestId', $<HTMLInputElement>('log-request').value.trim()],
    ['from', iso($<HTMLInputElement>('log-from').value)],
    ['to', iso($<HTMLInputElement>('log-to').value)],
  ];
  filter = Object.fromEntries(entries.filter((e): e is [string, string] => Boolean(e[1])));
}

function startTail(api: Api): void {
  tail?.close();
  tail = undefined;
  // A past end time has no live lines to wait for.
  if (!$<HTMLInputElement>('log-live').checked || filter.to) {
    $('log-state').textContent = 'Live tail off.';
    return;
  }
  const params = new URLSearchParams(filter);
  tail = new EventSource(`${api.stream}${params.size > 0 ? `?${params}` : ''}`);
  tail.addEventListener('open', () => {
    $('log-state').textContent = 'Live: new lines appear as they are logged.';
    document.body.dataset.logTail = 'open';
  });
  tail.addEventListener('line', (event) => {
    const line = JSON.parse((event as MessageEvent<string>).data) as KeptLine;
    const body = $<HTMLTableElement>('log-lines').tBodies[0] as HTMLTableSectionElement;
    body.querySelector('tr.empty')?.remove();
    body.append(lineRow(line, api));
    while (body.rows.length > SHOWN) body.deleteRow(0);
  });
  tail.addEventListener('error', () => {
    $('log-state').textContent = 'Live tail interrupted; reconnecting.';
  });
}

async function apply(api: Api): Promise<void> {
  readFilter();
  const { lines, capacity } = await get<{ lines: KeptLine[]; capacity: number }>(api.logs, {
    ...filter,
    limit: String(SHOWN),
  });
  const body = $<HTMLTableElement>('log-lines').tBodies[0] as HTMLTableSectionElement;
  if (lines.length === 0) {
    const tr = document.createElement('tr');
    tr.className = 'empty';
    const td = document.createElement('td');
    td.colSpan = 5;
    td.className = 'muted';
    td.textContent = 'No lines match.';
    tr.append(td);
    body.replaceChildren(tr);
  } else body.replaceChildren(...lines.map((line) => lineRow(line, api)));
  $('log-bound').textContent =
    `The broker keeps the newest ${capacity} log entries and ${capacity} request lines in memory (a restart empties them); this table shows the newest ${SHOWN}.`;
  const names = new Set(lines.flatMap((l) => (l.functionName ? [l.functionName] : [])));
  const list = $('log-function-names');
  for (const name of names) {
    if (![...list.children].some((o) => (o as HTMLOptionElement).value === name)) {
      list.append(new Option(name, name));
    }
  }
  startTail(api);
}

function listen(api: Api): void {
  $<HTMLFormElement>('log-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    run(() => apply(api))();
  });
  $('log-clear').addEventListener(
    'click',
    run(async () => {
      for (const id of ['log-function', 'log-text', 'log-request', 'log-from', 'log-to']) {
        $<HTMLInputElement>(id).value = '';
      }
      $<HTMLSelectElement>('log-level').value = '';
      await apply(api);
    }),
  );
  $('log-live').addEventListener('change', () => startTail(api));
}

export default {
  open: async (api) => {
    listen(api);
    await apply(api);
  },
} satisfies SectionScript<'logs' | 'stream'>;
