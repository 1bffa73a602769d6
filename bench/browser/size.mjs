// Bundle-size benchmark: our SDK's app bundle against the same app on supabase-js, in one run.
// Run: npx node bench/browser/size.mjs (from the repository root).
import { BUDGET_BYTES, measure, platformApp, supabaseApp } from './measure.mjs';

const ours = await measure(platformApp);
const theirs = await measure(supabaseApp);
const format = (n) => n.toLocaleString('en-US').padStart(8);
console.log('bundle (esbuild --minify, gzip -9)        minified      gzip');
console.log(
  `@platform/browser (whole public surface) ${format(ours.minified)} B ${format(ours.gzip)} B`,
);
console.log(
  `@supabase/supabase-js (same app)         ${format(theirs.minified)} B ${format(theirs.gzip)} B`,
);
console.log(
  `ratio (gzip): ${(ours.gzip / theirs.gzip).toFixed(3)} (1/${(theirs.gzip / ours.gzip).toFixed(1)}); ` +
    `budget ${BUDGET_BYTES.toLocaleString('en-US')} B: ${ours.gzip <= BUDGET_BYTES ? 'ok' : 'EXCEEDED'}`,
);
