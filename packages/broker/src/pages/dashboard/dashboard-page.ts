import { escapeHtml } from '../../kernel/escape-html.ts';
import type { HtmlPage } from '../page-shell.ts';
import { type DashboardSection, fillAppId } from './dashboard-section.ts';

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f6f6f8}
header{background:#1b1b1f;color:#fff;padding:.75rem 1.5rem}header h1{font-size:1.1rem;margin:0}
main{padding:1rem 1.5rem;max-width:80rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .4rem}
table{border-collapse:collapse;background:#fff;width:100%;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eee}td.num{text-align:right}code{font-size:.8rem}
.muted{color:#666;font-size:.8rem}.error{color:#a4161a}
`;

/** The section's element: its heading, its markup, and its filled API paths for the script. */
function sectionHtml(section: DashboardSection, appId: string): string {
  const api = Object.fromEntries(
    Object.entries(section.api).map(([name, path]) => [name, fillAppId(path, appId)]),
  );
  const id = escapeHtml(section.id);
  return `<section id="${id}" aria-labelledby="${id}-title" data-api="${escapeHtml(JSON.stringify(api))}"${section.hidden ? ' hidden' : ''}>
<h2 id="${id}-title">${escapeHtml(section.title)}</h2>
${section.html}
</section>`;
}

/**
 * The dashboard page of app `appId`: one section per contribution, in the order given, empty
 * until the bundled script (`script`, a same-origin path) fills them. No form posts anywhere.
 */
export function dashboardPage(input: {
  readonly appId: string;
  readonly sections: readonly DashboardSection[];
  readonly script: string;
}): HtmlPage {
  const { appId, sections } = input;
  return {
    title: `${appId}: dashboard`,
    style: [style, ...sections.map((section) => section.style ?? '')].join(''),
    forms: false,
    scriptSrc: input.script,
    body: `<header><h1>App ${escapeHtml(appId)}: dashboard</h1></header>
<main>
<p id="error" class="error" role="alert" hidden></p>
${sections.map((section) => sectionHtml(section, appId)).join('\n')}
<p class="muted">Times are shown in this browser's time zone (<span id="tz"></span>).</p>
</main>`,
  };
}
