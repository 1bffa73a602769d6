// The console needs no build step from the user and stays small: its script (bundled from the
// sections' modules when first asked for) and its page, gzipped, fit the budget for every
// section the registry's features contribute.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ResolvedBrokerOptions } from '../../src/app/broker-options.ts';
import { brokerFeatures } from '../../src/app/features.ts';
import { dashboardOf } from '../../src/feature/compose.ts';
import { dashboardPaths } from '../../src/http/paths.ts';
import { dashboardPage } from '../../src/pages/dashboard/dashboard-page.ts';
import {
  CONSOLE_CLIENT_BUDGET_BYTES,
  clientScript,
} from '../../src/pages/dashboard/dashboard-routes.ts';
import { renderPage } from '../../src/pages/page-shell.ts';

// Only what the registry reads when it is declared; no feature starts.
const options = {
  appId: 'budget',
  declared: { secrets: [], searches: {}, emailAliases: [] },
  searches: [],
} as unknown as ResolvedBrokerOptions;

describe('the console client budget', () => {
  it('keeps script and page of every section under the budget, gzipped', async () => {
    const sections = dashboardOf(brokerFeatures(options, 'http://127.0.0.1:1'));
    expect(sections.map((s) => s.group)).toEqual(
      expect.arrayContaining(['overview', 'logs', 'functions', 'jobs', 'access']),
    );
    const script = await clientScript(sections);
    const page = renderPage(
      dashboardPage({ appId: 'budget', sections, script: dashboardPaths.script }),
      'nonce',
    );
    const gzipped = gzipSync(script, { level: 9 }).length + gzipSync(page, { level: 9 }).length;
    expect(gzipped).toBeGreaterThan(1000);
    expect(gzipped, `${gzipped} B gzip`).toBeLessThanOrEqual(CONSOLE_CLIENT_BUDGET_BYTES);
    console.log(`console client: ${gzipped} B gzip (budget ${CONSOLE_CLIENT_BUDGET_BYTES} B)`);
  });
});
