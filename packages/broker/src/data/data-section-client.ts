// The console's Data section, in the browser: the tables, then one table's rows (paged, as the
// owner; or as one user under RLS) with its policies beside them. Values are shown as text.
import {
  $,
  fill,
  get,
  row,
  run,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { TableSummary } from './data-browser.ts';

type Api = { readonly tables: string; readonly rows: string };
interface RowPage {
  rows: Record<string, unknown>[];
  offset: number;
  total: number | null;
  asUser?: string;
}

const PAGE = 25;
let tables: TableSummary[] = [];
let current: string | undefined;
let offset = 0;

const cell = (value: unknown) =>
  value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

function showPolicies(table: TableSummary): void {
  const list = $('data-policies');
  const items = table.policies.map((p) => {
    const li = document.createElement('li');
    const name = document.createElement('b');
    name.textContent = `${p.name} `;
    const what = document.createElement('span');
    what.textContent = `${p.command} to ${p.roles.join(', ')}${p.permissive ? '' : ' (restrictive)'}`;
    li.append(name, what);
    for (const [label, expr] of [
      ['using', p.using],
      ['with check', p.check],
    ] as const) {
      if (!expr) continue;
      const line = document.createElement('div');
      const code = document.createElement('code');
      code.textContent = expr;
      line.append(`${label}: `, code);
      li.append(line);
    }
    return li;
  });
  if (items.length === 0) {
    const li = document.createElement('li');
    li.textContent = table.rowLevelSecurity
      ? 'Row-level security is on and no policy allows anything: only the owner sees rows.'
      : 'Row-level security is off: every caller sees every row.';
    items.push(li);
  }
  list.replaceChildren(...items);
}

async function loadRows(api: Api): Promise<void> {
  if (!current) return;
  const asUser = $<HTMLInputElement>('data-as-user').value.trim();
  const page = await get<RowPage>(api.rows.replace(':table', encodeURIComponent(current)), {
    limit: String(PAGE),
    ...(asUser ? { asUser } : { offset: String(offset) }),
  });
  const columns = [...new Set(page.rows.flatMap((r) => Object.keys(r)))];
  const head = $<HTMLTableElement>('data-rows').tHead?.rows[0];
  head?.replaceChildren(
    ...columns.map((c) => {
      const th = document.createElement('th');
      th.textContent = c;
      return th;
    }),
  );
  fill(
    'data-rows',
    page.rows.map((r) => row(columns.map((c) => cell(r[c])))),
    asUser ? 'This user sees no rows.' : 'The table is empty.',
    Math.max(1, columns.length),
  );
  $('data-range').textContent = asUser
    ? `What user ${asUser} sees under the table's policies (the first ${PAGE} rows).`
    : `Rows ${page.rows.length === 0 ? 0 : offset + 1} to ${offset + page.rows.length} of ${page.total}, as the owner (every row).`;
  $<HTMLButtonElement>('data-prev').disabled = Boolean(asUser) || offset === 0;
  $<HTMLButtonElement>('data-next').disabled =
    Boolean(asUser) || page.total === null || offset + PAGE >= page.total;
  document.body.dataset.dataView = asUser ? `user:${asUser}` : `owner:${offset}`;
}

function open(api: Api, name: string): Promise<void> {
  current = name;
  offset = 0;
  const table = tables.find((t) => t.name === name);
  $('data-title').textContent = `Table ${name}`;
  $('data-table').hidden = false;
  if (table) showPolicies(table);
  return loadRows(api);
}

async function loadTables(api: Api): Promise<void> {
  ({ tables } = await get<{ tables: TableSummary[] }>(api.tables, {}));
  fill(
    'data-tables',
    tables.map((t) => {
      const tr = row(['', t.rows, t.rowLevelSecurity ? 'on' : 'off', t.policies.length]);
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = t.name;
      button.setAttribute('aria-label', `Browse table ${t.name}`);
      button.addEventListener(
        'click',
        run(() => open(api, t.name)),
      );
      tr.cells[0]?.replaceChildren(button);
      return tr;
    }),
    'The app database has no tables yet.',
    4,
  );
}

export default {
  open: async (api) => {
    $<HTMLFormElement>('data-view').addEventListener('submit', (event) => {
      event.preventDefault();
      offset = 0;
      run(() => loadRows(api))();
    });
    $('data-prev').addEventListener(
      'click',
      run(async () => {
        offset = Math.max(0, offset - PAGE);
        await loadRows(api);
      }),
    );
    $('data-next').addEventListener(
      'click',
      run(async () => {
        offset += PAGE;
        await loadRows(api);
      }),
    );
    await loadTables(api);
  },
  refresh: loadTables,
} satisfies SectionScript<keyof Api>;
