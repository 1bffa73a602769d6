// Fails (exit 1) when the app bundle using the whole public surface of @platform/browser is
// larger than its budget, minified and gzipped at level 9. Run: npx node scripts/check-bundle-size.mjs
import { BUDGET_BYTES, measure, platformApp } from '../bench/browser/measure.mjs';

const { gzip } = await measure(platformApp);
if (gzip > BUDGET_BYTES) {
  console.error(
    `@platform/browser bundle: ${gzip} B gzip exceeds the budget of ${BUDGET_BYTES} B.`,
  );
  process.exit(1);
}
console.log(`@platform/browser bundle: ${gzip} B gzip (budget ${BUDGET_BYTES} B)`);
