import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { buildThenIdle } from '../../functions/esbuild-service.ts';
import type { BrokerEnv } from '../../http/broker-env.ts';
import {
  brokerApiPaths,
  dashboardPaths,
  integrationApiPaths,
  jobsApiPaths,
  orgApiPaths,
} from '../../http/paths.ts';
import { dashboardHtml } from './dashboard-html.ts';

// From source the client sits beside this file; from the published build (dist/*.js), the
// package still ships `src`, so the client is read from there.
const clientFile = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts')
      ? './dashboard-client.ts'
      : '../src/jobs/dashboard/dashboard-client.ts',
    import.meta.url,
  ),
);

let bundled: Promise<string> | undefined;

/** The browser script, bundled once per process (about 20 ms with esbuild). */
function clientScript(): Promise<string> {
  bundled ??= buildThenIdle({
    entryPoints: [clientFile],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
  }).then(
    (result) => result.outputFiles[0]?.text ?? '',
    (error: unknown) => {
      bundled = undefined;
      throw error;
    },
  );
  return bundled;
}

const fill = (path: string, appId: string) => path.replace(':appId', encodeURIComponent(appId));

/**
 * Mounts the dashboard's Background jobs section (spec 4.5): a plain HTML page and one bundled
 * script that reads the jobs API (history), the jobs summary (totals, depth, queue policy), the
 * cron summary, the broker API's recent AI calls, the outbox (email sent and received) and the
 * notifications the local push service received, the organisation (its apps and members) and
 * the integration calls the app made or served and the events delivered to its slots (never
 * inputs, outputs, payloads or credentials). Served with a strict Content Security Policy: this origin's script and
 * API only, no framing.
 */
export function mountDashboard(
  app: Hono<BrokerEnv>,
  options: { appId: string; paths: { summary: string; cron: string } },
): void {
  const api = {
    jobs: fill(jobsApiPaths.list, options.appId),
    summary: fill(options.paths.summary, options.appId),
    cron: fill(options.paths.cron, options.appId),
    aiCalls: brokerApiPaths.aiCalls,
    mail: `${brokerApiPaths.outbox}?limit=50`,
    push: brokerApiPaths.pushDeliveries,
    organisation: orgApiPaths.organisation,
    integrationCalls: fill(integrationApiPaths.calls, options.appId),
    integrationEvents: fill(integrationApiPaths.events, options.appId),
  };
  app.get(dashboardPaths.page, (c) => {
    const nonce = randomBytes(12).toString('base64url');
    return c.html(
      dashboardHtml({ appId: options.appId, api, script: dashboardPaths.script, nonce }),
      200,
      {
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
        'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'nonce-${nonce}'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
      },
    );
  });
  app.get(dashboardPaths.script, async (c) =>
    c.body(await clientScript(), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    }),
  );
}
