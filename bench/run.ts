// Runs every benchmark suite (or those named on the command line) and prints figures with their
// same-run baselines and ratios. Timings are never asserted in tests; they are reported here.
import { print, type Row } from './report.ts';

const suites: Record<string, () => Promise<{ run: () => Promise<Row[]> }>> = {
  schema: () => import('./schema/validate.ts'),
  server: () => import('./server/run.ts'),
  browser: () => import('./browser/run.ts'),
  broker: () => import('./broker/functions.ts'),
  'broker-first-call': () => import('./broker/first-call.ts'),
  dev: () => import('./dev/dev.ts'),
  search: () => import('./search/search.ts'),
  jobs: () => import('./jobs/jobs.ts'),
  ai: () => import('./ai/ai.ts'),
  'inbound-mail': () => import('./inbound-mail/inbound-mail.ts'),
  push: () => import('./push/push.ts'),
  realtime: () => import('./realtime/realtime.ts'),
  integrations: () => import('./integrations/integrations.ts'),
  'integration-events': () => import('./integrations/events.ts'),
  files: () => import('./files/storage-memory.ts'),
  serve: () => import('./serve/serve.ts'),
  scale: () => import('./scale/scale.ts'),
  mcp: () => import('./mcp/tokens.ts'),
  backups: () => import('./backups/backups.ts'),
  console: () => import('./console/console.ts'),
};

const wanted = process.argv.slice(2);
const rows: Row[] = [];
for (const [name, load] of Object.entries(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`running ${name}...`);
  rows.push(...(await (await load()).run()));
}
print(rows);
