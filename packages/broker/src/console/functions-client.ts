// The console's Functions, in the browser: the list (access, what calls each, recent calls) and
// the runner, which sends the owner API's direct invocation (`platform invoke`'s) and shows the
// output, the call's log lines and its duration.

import type { FinishedCall } from '../functions/invoker.ts';
import type { CronSummary } from '../jobs/cron/cron-summary.ts';
import type { JobSummary } from '../jobs/job-summary.ts';
import type { KeptLine } from '../logs/log-sink.ts';
import {
  $,
  actionCell,
  errorText,
  fill,
  get,
  jsonOf,
  localTime,
  row,
  run,
  type SectionScript,
  sendRaw,
} from '../pages/dashboard/dashboard-client-kit.ts';

type Api = Record<'functions' | 'cron' | 'summary' | 'invoke' | 'logs', string>;
interface FunctionView {
  name: string;
  access: string;
  recent: FinishedCall[];
}

const recentText = (calls: readonly FinishedCall[]) => {
  const last = calls[0];
  if (!last) return 'none yet';
  const failed = calls.filter((c) => !c.ok).length;
  return `${calls.length} recent, ${failed} failed; last ${localTime(last.at)} (${last.origin}, ${last.durationMs} ms${last.ok ? '' : `, ${last.code}`})`;
};

function choose(name: string): void {
  $<HTMLSelectElement>('fn-name').value = name;
  $('fn-run-title').scrollIntoView({ block: 'nearest' });
  $<HTMLTextAreaElement>('fn-input').focus();
}

async function load(api: Api): Promise<void> {
  const [{ functions }, { schedules }, summary] = await Promise.all([
    get<{ functions: FunctionView[] }>(api.functions, {}),
    get<{ schedules: CronSummary[] }>(api.cron, {}).catch(() => ({ schedules: [] })),
    get<JobSummary>(api.summary, {}).catch(() => ({ queues: [] }) as Pick<JobSummary, 'queues'>),
  ]);
  fill(
    'fn-list',
    functions.map((fn) => {
      const callers = [
        ...schedules
          .filter((s) => s.function === fn.name)
          .map((s) => `cron ${s.name} (${s.schedule})`),
        ...summary.queues.filter((q) => q.function === fn.name).map((q) => `queue ${q.name}`),
      ];
      const tr = row([
        fn.name,
        fn.access,
        callers.join(', ') || 'requests only',
        recentText(fn.recent),
      ]);
      tr.append(actionCell('Run…', async () => choose(fn.name), `Run ${fn.name}`));
      return tr;
    }),
    'No Functions are running.',
    5,
  );
  const select = $<HTMLSelectElement>('fn-name');
  const current = select.value;
  select.replaceChildren(...functions.map((fn) => new Option(fn.name, fn.name)));
  if (current) select.value = current;
}

async function runFunction(api: Api): Promise<void> {
  const name = $<HTMLSelectElement>('fn-name').value;
  const user = $<HTMLInputElement>('fn-user').value.trim();
  let input: unknown;
  try {
    input = JSON.parse($<HTMLTextAreaElement>('fn-input').value || '{}');
  } catch (error) {
    throw new Error(`The input is not JSON: ${(error as Error).message}`);
  }
  $('fn-duration').textContent = 'Running…';
  $('fn-output').textContent = '';
  $('fn-logs').textContent = '';
  const started = performance.now();
  const response = await sendRaw('POST', api.invoke.replace(':name', encodeURIComponent(name)), {
    input,
    ...(user ? { user } : {}),
  });
  const type = response.headers.get('content-type') ?? '';
  const requestId = response.headers.get('x-request-id') ?? '';
  const body = type.includes('json') ? await jsonOf(response) : await response.text();
  const ms = Math.round(performance.now() - started);
  $('fn-duration').textContent =
    `${response.ok ? 'Succeeded' : 'Failed'} in ${ms} ms (request ${requestId}).`;
  $('fn-output').textContent = response.ok
    ? typeof body === 'string'
      ? body
      : JSON.stringify((body as { result?: unknown } | undefined)?.result ?? body, null, 2)
    : errorText(response, body);
  if (requestId) {
    const { lines } = await get<{ lines: KeptLine[] }>(api.logs, { requestId });
    $('fn-logs').textContent =
      lines
        .filter((l) => l.kind === 'log')
        .map((l) =>
          l.kind === 'log'
            ? `${l.level.toUpperCase()} ${l.message}${l.fields ? ` ${JSON.stringify(l.fields)}` : ''}`
            : '',
        )
        .join('\n') || 'No log lines.';
  }
  document.body.dataset.lastRun = requestId;
}

export default {
  open: async (api) => {
    $<HTMLFormElement>('fn-run').addEventListener('submit', (event) => {
      event.preventDefault();
      run(() => runFunction(api))();
    });
    await load(api);
  },
  refresh: load,
} satisfies SectionScript<keyof Api>;
