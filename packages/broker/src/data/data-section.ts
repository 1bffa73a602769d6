import { consoleApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';

/**
 * The console's Data section: the app's tables with row counts, a paged row browser as the
 * owner, each table's row-level security policies beside its rows, and "view as user", which
 * reads the rows one user sees through the data API the SDK uses.
 */
export const dataSection: DashboardSection = {
  group: 'data',
  id: 'data-section',
  title: 'Data',
  api: { tables: consoleApiPaths.tables, rows: consoleApiPaths.tableRows },
  script: 'data/data-section-client.ts',
  style: `.data-layout{display:flex;gap:1rem;align-items:flex-start;flex-wrap:wrap}
.data-rows{flex:3;min-width:24rem;overflow:auto}.data-policies{flex:1;min-width:16rem}
.data-policies li{margin-bottom:.5rem}.data-policies code{white-space:pre-wrap}
#data-tables button{font:inherit}`,
  html: `<table id="data-tables"><thead><tr><th>Table</th><th>Rows</th><th>Row-level security</th><th>Policies</th></tr></thead><tbody></tbody></table>
<div id="data-table" hidden>
<h3 id="data-title"></h3>
<form class="filters" id="data-view">
<label>View as user (UUID; empty: as the owner, every row)<input id="data-as-user" autocomplete="off" size="38"></label>
<button type="submit" id="data-apply">Show</button>
</form>
<p class="muted" id="data-range" role="status"></p>
<div class="data-layout">
<div class="data-rows"><table id="data-rows"><thead><tr></tr></thead><tbody></tbody></table>
<div class="pager"><button type="button" id="data-prev">Previous</button> <button type="button" id="data-next">Next</button></div></div>
<div class="data-policies"><h4>Policies</h4><ul id="data-policies"></ul></div>
</div>
</div>`,
};
