import type { Hono } from 'hono';
import { buildThenIdle } from '../../functions/esbuild-service.ts';
import type { BrokerEnv } from '../../http/broker-env.ts';
import { dashboardPaths } from '../../http/paths.ts';
import { pageResponse } from '../page-shell.ts';
import { dashboardPage } from './dashboard-page.ts';
import type { DashboardSection } from './dashboard-section.ts';
import { brokerSourceFile } from './source-file.ts';

const bundles = new Map<string, Promise<string>>();

/**
 * The console's client code budget: its bundled script and its page (markup and the one
 * stylesheet), gzipped, for every section the broker's features contribute.
 * `test/pages/console-budget.test.ts` holds the registry to it.
 */
export const CONSOLE_CLIENT_BUDGET_BYTES = 60 * 1024;

/**
 * The browser script of these sections: the dashboard's entry and each section's module in one
 * bundle, built once per process and set of sections (about 20 ms with esbuild).
 */
export function clientScript(sections: readonly DashboardSection[]): Promise<string> {
  const key = sections.map((section) => `${section.id}=${section.script}`).join('\n');
  const known = bundles.get(key);
  if (known) return known;
  const entry = [
    `import { startDashboard } from ${JSON.stringify(brokerSourceFile('pages/dashboard/dashboard-client-main.ts'))};`,
    ...sections.map(
      (section, i) => `import s${i} from ${JSON.stringify(brokerSourceFile(section.script))};`,
    ),
    `startDashboard([${sections.map((section, i) => `[${JSON.stringify(section.id)}, s${i}]`).join(', ')}]);`,
  ].join('\n');
  const bundled = buildThenIdle({
    stdin: { contents: entry, loader: 'ts', resolveDir: brokerSourceFile('.') },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
  }).then(
    (result) => result.outputFiles[0]?.text ?? '',
    (error: unknown) => {
      bundles.delete(key);
      throw error;
    },
  );
  bundles.set(key, bundled);
  return bundled;
}

/**
 * Mounts the dashboard (spec 4.5) at `GET /_platform/dashboard`: a page with the sections the
 * features of this broker contribute, in the order given, and one bundled script that fills
 * them from the broker's JSON API (never payloads, inputs, outputs or credentials). The page
 * sends the headers of every broker page: this origin's script and API only, no framing.
 * Mount it after admission, which keeps the dashboard to the app's owner and developer.
 *
 * @example
 * ```ts
 * mountDashboard(app, { appId: 'notes', sections: [jobsSection, cronSection, aiSection] });
 * ```
 */
export function mountDashboard(
  app: Hono<BrokerEnv>,
  options: { readonly appId: string; readonly sections: readonly DashboardSection[] },
): void {
  const { appId, sections } = options;
  const ids = new Set<string>();
  for (const section of sections) {
    if (ids.has(section.id)) {
      throw new TypeError(`Two dashboard sections share the id "${section.id}".`);
    }
    ids.add(section.id);
  }
  app.get(dashboardPaths.page, () =>
    pageResponse(dashboardPage({ appId, sections, script: dashboardPaths.script })),
  );
  app.get(dashboardPaths.script, async (c) =>
    c.body(await clientScript(sections), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    }),
  );
}
