// What every section script of the dashboard shares, in the browser: element lookup, the JSON
// API, table rows built with textContent (never HTML from data), times in the browser's zone,
// and the page's one error line.

/**
 * A section's browser side: the default export of its module. `Api` names the paths of the
 * section's `api` (`DashboardSection`), which both methods receive filled.
 */
export interface SectionScript<Api extends string = string> {
  /** Fills the section when the page opens; a failure shows in the error line. */
  open(api: Readonly<Record<Api, string>>): Promise<void>;
  /** Brings the section up to date every 5 s; without it the section stays as opened. */
  refresh?(api: Readonly<Record<Api, string>>): Promise<void>;
}

/** The element with this id; a missing one is a bug of the section's markup. */
export const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

/** Zero-padded digits. */
export const pad = (n: number, width = 2): string => String(Math.abs(n)).padStart(width, '0');

/** An instant in this browser's time zone, `YYYY-MM-DD HH:mm:ss`. */
export function localTime(iso: string | null): string {
  if (iso === null) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** GETs a broker API path as JSON; an error answer throws its code and message. */
export async function get<T>(path: string, query: Record<string, string | undefined>): Promise<T> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const joiner = path.includes('?') ? '&' : '?';
  const response = await fetch(`${path}${params.size > 0 ? `${joiner}${params}` : ''}`, {
    headers: { accept: 'application/json' },
  });
  const body = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok) {
    throw new Error(`${body.error?.code ?? response.status}: ${body.error?.message ?? ''}`);
  }
  return body;
}

/** A table row of text cells; numbers align right; `classes` names a cell's class by index. */
export function row(
  cells: readonly (string | number)[],
  classes: Record<number, string> = {},
): HTMLTableRowElement {
  const tr = document.createElement('tr');
  cells.forEach((cell, i) => {
    const td = document.createElement('td');
    td.textContent = String(cell);
    if (typeof cell === 'number') td.className = 'num';
    if (classes[i]) td.className = classes[i];
    tr.append(td);
  });
  return tr;
}

/** Replaces the rows of table `id`; with none, one muted row says `empty`. */
export function fill(id: string, rows: HTMLTableRowElement[], empty: string, columns: number) {
  const body = $<HTMLTableElement>(id).tBodies[0] as HTMLTableSectionElement;
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = document.createElement('td');
    td.colSpan = columns;
    td.className = 'muted';
    td.textContent = empty;
    tr.append(td);
    rows = [tr];
  }
  body.replaceChildren(...rows);
}

/** Shows an error in the page's error line, or clears it with `undefined`. */
export function showError(error: unknown): void {
  const p = $('error');
  p.hidden = error === undefined;
  p.textContent = error instanceof Error ? error.message : error ? String(error) : '';
}

/** An event handler that runs `work` and shows its failure (or clears the error line). */
export const run = (work: () => Promise<void>) => (): void => {
  work().then(() => showError(undefined), showError);
};

// The console's form token, fetched once: every state change the console sends carries it in
// `x-platform-csrf`, which a cross-site page can neither read nor forge (docs/auth.md).
let formToken: Promise<string> | undefined;

/**
 * Sends a state change (`POST`, `PUT`, `DELETE`) to a broker API path as JSON, with the
 * console's form token; resolves to the answer, whatever its status.
 */
export async function sendRaw(method: string, path: string, body?: unknown): Promise<Response> {
  formToken ??= get<{ csrf: string }>(document.body.dataset.session ?? '', {}).then((s) => s.csrf);
  return fetch(path, {
    method,
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'x-platform-csrf': await formToken,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The JSON body of an answer, or `undefined` when it has none or it is not JSON. */
export async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The `CODE: message` of an error answer's body. */
export const errorText = (response: Response, body: unknown): string => {
  const error = (body as { error?: { code: string; message: string } } | undefined)?.error;
  return `${error?.code ?? response.status}: ${error?.message ?? ''}`;
};

/**
 * {@link sendRaw}, then the answer's JSON body; an error answer throws its code and message.
 */
export async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await sendRaw(method, path, body);
  const parsed = await jsonOf(response);
  if (!response.ok) throw new Error(errorText(response, parsed));
  return parsed as T;
}

/** Asks the person to confirm a change first; `false` when they decline. */
export const confirmed = (question: string): boolean => window.confirm(question);

/** A button in a table cell that runs `work` when pressed, its failure shown in the error line. */
export function actionCell(
  label: string,
  work: () => Promise<void>,
  name?: string,
): HTMLTableCellElement {
  const td = document.createElement('td');
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = label;
  if (name) button.setAttribute('aria-label', name);
  button.addEventListener('click', run(work));
  td.append(button);
  return td;
}

/**
 * Fills the header's switcher with the organisation's apps, each a link to its own console
 * (`{url}/_platform/dashboard`, the path this page has); shown once there is another app.
 */
export function showApps(apps: readonly { appId: string; url: string }[]): void {
  const nav = $('console-apps');
  const current = document.body.dataset.app;
  const items = apps.map((app) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.textContent = app.appId;
    a.href = `${app.url.replace(/\/$/, '')}${location.pathname}`;
    if (app.appId === current) a.setAttribute('aria-current', 'page');
    li.append(a);
    return li;
  });
  nav.querySelector('ul')?.replaceChildren(...items);
  nav.hidden = apps.length < 2;
}
