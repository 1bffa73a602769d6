// Bundle size of an app using the whole public surface of @platform/browser, against the same
// app written with supabase-js, both built by esbuild (minified, gzip -9) in the same run.
import { type Row, row } from '../report.ts';
// @ts-expect-error: plain ESM helper shared with scripts/check-bundle-size.mjs, no types.
import { BUDGET_BYTES, measure, platformApp, supabaseApp } from './measure.mjs';

export async function run(): Promise<Row[]> {
  const ours = (await measure(platformApp)) as { gzip: number };
  const supabase = (await measure(supabaseApp)) as { gzip: number };
  const ratio = ours.gzip / supabase.gzip;
  return [
    row(
      'browser: app bundle, gzip (vs supabase-js)',
      `${ours.gzip} B`,
      `${supabase.gzip} B`,
      ratio,
      {
        text: `< ${BUDGET_BYTES} B and ratio < 0.1`,
        met: ours.gzip < BUDGET_BYTES && ratio < 0.1,
      },
    ),
  ];
}
