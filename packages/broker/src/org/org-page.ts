import { type HtmlPage, markup } from '../pages/page-shell.ts';

/** One app as the organisation page lists it. */
export interface OrgPageApp {
  readonly appId: string;
  /** `{app_url}`. */
  readonly url: string;
  /** Its dashboard page (it asks for the dev token or an owner's sign-in itself). */
  readonly dashboard: string;
}

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f6f6f8}
header{background:#1b1b1f;color:#fff;padding:.75rem 1.5rem}header h1{font-size:1.1rem;margin:0}
main{padding:1rem 1.5rem;max-width:60rem}
table{border-collapse:collapse;background:#fff;width:100%}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left}th{background:#eee}
`;

/**
 * The organisation page at `{base_url}/`: the organisation's apps with their URLs and a link to
 * each app's dashboard, and (for the developer) its members and roles. No script and no form.
 */
export function orgPage(page: {
  readonly organisation: string;
  readonly apps: readonly OrgPageApp[];
  /** Members and their roles; shown to the developer (dev token) only. */
  readonly members?: readonly { readonly email: string; readonly role: string }[];
}): HtmlPage {
  const members =
    page.members === undefined
      ? ''
      : markup`<h2>Members</h2>
<table><thead><tr><th>Email</th><th>Role</th></tr></thead><tbody>
${page.members.map((m) => markup`<tr><td>${m.email}</td><td>${m.role}</td></tr>\n`)}</tbody></table>`;
  const rows = page.apps.map(
    (app) =>
      markup`<tr><td><code>${app.appId}</code></td><td><a href="${app.url}/">${app.url}</a></td><td><a href="${app.dashboard}">dashboard</a></td></tr>\n`,
  );
  return {
    title: `${page.organisation}: apps`,
    style,
    forms: false,
    body: markup`<header><h1>Organisation ${page.organisation}</h1></header>
<main><h2>Apps</h2>
<table><thead><tr><th>App id</th><th>URL</th><th></th></tr></thead><tbody>
${rows}</tbody></table>${members}</main>`.toString(),
  };
}
