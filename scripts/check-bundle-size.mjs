// Fails (exit 1) when an app bundle using the whole public surface of @platform/browser, or of
// its realtime client (@platform/browser/realtime), is larger than its budget, minified and
// gzipped at level 9. Run: npx node scripts/check-bundle-size.mjs
import {
  BUDGET_BYTES,
  measure,
  platformApp,
  REALTIME_BUDGET_BYTES,
  realtimeApp,
} from '../bench/browser/measure.mjs';

let failed = false;
for (const [name, entry, budget] of [
  ['@platform/browser', platformApp, BUDGET_BYTES],
  ['@platform/browser/realtime', realtimeApp, REALTIME_BUDGET_BYTES],
]) {
  const { gzip } = await measure(entry);
  if (gzip > budget) {
    console.error(`${name} bundle: ${gzip} B gzip exceeds the budget of ${budget} B.`);
    failed = true;
  } else console.log(`${name} bundle: ${gzip} B gzip (budget ${budget} B)`);
}
if (failed) process.exit(1);
