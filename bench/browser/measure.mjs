// Bundles an app entry the way a frontend build would (esbuild, minified, browser ESM) and
// measures it gzipped at level 9. Shared by the bench runner and scripts/check-bundle-size.mjs.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The app bundle that uses the whole public surface of @platform/browser. */
export const platformApp = new URL('./app-platform.ts', import.meta.url).pathname;
/** The same app on @supabase/supabase-js (createClient, getUser, functions.invoke). */
export const supabaseApp = new URL('./app-supabase.ts', import.meta.url).pathname;

/** The app bundle that uses the whole public surface of @platform/browser/realtime. */
export const realtimeApp = new URL('./app-realtime.ts', import.meta.url).pathname;

/**
 * The realtime client's own budget: minified + gzip -9 bytes of {@link realtimeApp}. About 1,400
 * of them are `@platform/errors`' `PlatformError`, which an app using the core SDK already has.
 */
export const REALTIME_BUDGET_BYTES = 4_096;

/** Our budget: minified + gzip -9 bytes of {@link platformApp}. */
export const BUDGET_BYTES = 5_000;

/**
 * @param {string} entry
 * @returns {Promise<{ minified: number, gzip: number }>}
 */
export async function measure(entry) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // Build from source, as the published dist is built from it by tsup without minification.
    conditions: ['@platform/source'],
    write: false,
    logLevel: 'error',
  });
  const code = result.outputFiles[0].contents;
  return { minified: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength };
}
