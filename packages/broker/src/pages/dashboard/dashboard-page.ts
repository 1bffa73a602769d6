import { raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { dashboardPaths } from '../../http/paths.ts';
import { type HtmlPage, markup } from '../page-shell.ts';
import { groupSections } from './console-groups.ts';
import { type DashboardSection, fillAppId } from './dashboard-section.ts';

// The console's one stylesheet: the layout here, each section's few rules appended after it.
// Colours keep a contrast of at least 4.5:1 on their backgrounds (axe's rule for text).
const style = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1f;background:#f6f6f8}
header{background:#1b1b1f;color:#fff;padding:.6rem 1.25rem;display:flex;gap:1rem;align-items:center}
header h1{font-size:1.05rem;margin:0}header a{color:#fff}
.apps ul{list-style:none;display:flex;gap:.75rem;margin:0;padding:0}.apps a[aria-current="page"]{font-weight:700;text-decoration:none}
.skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;color:#1b1b1f;padding:.3rem .6rem;z-index:2}
.console{display:flex;min-height:calc(100vh - 2.6rem)}
nav.sections{flex:0 0 12rem;background:#fff;border-right:1px solid #ddd;padding:.75rem 0}
nav.sections ul{list-style:none;margin:0;padding:0}
nav.sections a{display:block;padding:.35rem 1.25rem;color:#1b1b1f;text-decoration:none}
nav.sections a:hover{background:#eef}nav.sections a[aria-current="page"]{background:#e4e4f4;font-weight:600;border-left:3px solid #3b3bb3}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,[tabindex]:focus-visible{outline:2px solid #3b3bb3;outline-offset:2px}
main{flex:1;padding:1rem 1.5rem;max-width:90rem;min-width:0}
h2{font-size:1.15rem;margin:1.25rem 0 .5rem}h3{font-size:1rem;margin:1rem 0 .4rem}
table{border-collapse:collapse;background:#fff;width:100%;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eee}td.num{text-align:right}code,pre{font-size:.8rem}
pre{background:#fff;border:1px solid #ddd;padding:.5rem;overflow:auto;max-height:20rem;white-space:pre-wrap}
.muted{color:#555;font-size:.8rem}.error{color:#a4161a}
.filters{display:flex;gap:.75rem;flex-wrap:wrap;align-items:end;margin:.5rem 0}
.filters label{display:flex;flex-direction:column;font-size:.8rem;color:#444}
button{padding:.25rem .7rem}
.chart-figure{margin:.75rem 0}.chart{display:block;background:#fff;border:1px solid #ddd;max-width:40rem}
.chart rect{fill:var(--c)}.key{display:inline-block;width:.7rem;height:.7rem;margin:0 .2rem 0 .5rem;background:var(--c)}
.c-ok,.c-running{--c:#3b3bb3}.c-failed,.c-dead_lettered{--c:#a4161a}.c-queued{--c:#6b6b7b}.c-retry_wait{--c:#9a6700}.c-succeeded{--c:#1a7f37}
`;

/** The section's element: its heading, its markup, and its filled API paths for the script. */
function sectionHtml(section: DashboardSection, appId: string): HtmlEscapedString {
  const api = Object.fromEntries(
    Object.entries(section.api).map(([name, path]) => [name, fillAppId(path, appId)]),
  );
  const { id } = section;
  // The section's own markup is the feature's static HTML (DashboardSection.html), not data.
  return markup`<section id="${id}" aria-labelledby="${id}-title" data-api="${JSON.stringify(api)}"${section.hidden ? markup` hidden` : ''}>
<h2 id="${id}-title">${section.title}</h2>
${raw(section.html)}
</section>`;
}

/**
 * The console of app `appId`: a navigation of the groups the sections name (Overview, Logs,
 * Functions, ...; `consoleGroups`), one panel per group holding its sections in the order
 * given, and one bundled script (`script`, a same-origin path) that fills them and shows the
 * panel the address's `#group` names (the first one without). No form posts anywhere: the
 * sections' actions are calls of the owner API.
 */
export function dashboardPage(input: {
  readonly appId: string;
  readonly sections: readonly DashboardSection[];
  readonly script: string;
}): HtmlPage {
  const { appId, sections } = input;
  const groups = groupSections(sections);
  const nav = groups.map((g, i) => {
    const current = i === 0 ? markup` aria-current="page"` : '';
    return markup`<li id="nav-${g.id}"><a href="#${g.id}"${current}>${g.title}</a></li>`;
  });
  const panels = groups.map(
    (g, i) =>
      markup`${i === 0 ? '' : '\n'}<div class="panel" id="panel-${g.id}" data-group="${g.id}" tabindex="-1" aria-label="${g.title}"${i === 0 ? '' : markup` hidden`}>
${g.sections.map((section, j) => markup`${j === 0 ? '' : '\n'}${sectionHtml(section, appId)}`)}
</div>`,
  );
  return {
    title: `${appId}: console`,
    style: [style, ...sections.map((section) => section.style ?? '')].join(''),
    forms: false,
    scriptSrc: input.script,
    bodyAttributes: { 'data-app': appId, 'data-session': dashboardPaths.session },
    body: markup`<a class="skip" href="#main">Skip to the section</a>
<header><h1>App ${appId}: console</h1>
<nav class="apps" id="console-apps" aria-label="The organisation's apps" hidden><ul></ul></nav></header>
<div class="console">
<nav class="sections" aria-label="Console"><ul>${nav}</ul></nav>
<main id="main" tabindex="-1">
<p id="error" class="error" role="alert" hidden></p>
${panels}
<p class="muted">Times are shown in this browser's time zone (<span id="tz"></span>).</p>
</main>
</div>`.toString(),
  };
}
