import { mkdir } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { PlatformError } from '@platform/errors';
import type { BuildResult, Message } from 'esbuild';
import { writeBundleFiles } from './bundle-files.ts';
import { buildThenIdle } from './esbuild-service.ts';
import { importRules } from './import-rules.ts';
import type { SdkSource } from './sdk.ts';

/** One problem found while bundling, located in the app's source. */
export interface BundleDiagnostic {
  /** Path relative to the app folder. */
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly message: string;
}

/** What to bundle. */
export interface BundleOptions {
  /** The app folder; diagnostics name files relative to it. */
  readonly appDir: string;
  /** The Function's `entrypoint` from platform.yaml, relative to `appDir`. */
  readonly entrypoint: string;
  /** Where `@platform/server` comes from (see `resolveSdk`). */
  readonly sdk: SdkSource;
  /** The bundle to write (replaced atomically). */
  readonly outFile: string;
  /**
   * Wrap the Function in the `@platform/server/host` entry so the bundle serves it
   * (docs/runtime-contract.md 1.3). Off only for tests of the rules themselves.
   * @default true
   */
  readonly host?: boolean;
}

/** A written bundle. */
export interface BundleResult {
  readonly outFile: string;
  /** App files the bundle was built from (for watch mode). */
  readonly inputs: readonly string[];
  readonly milliseconds: number;
}

/** Formats diagnostics the way compilers do: `functions/a.ts:3:15: message`. */
export function formatDiagnostics(diagnostics: readonly BundleDiagnostic[]): string {
  return diagnostics
    .map(
      (d) =>
        `${d.file ?? '?'}${d.line === undefined ? '' : `:${d.line}:${(d.column ?? 0) + 1}`}: ${d.message}`,
    )
    .join('\n');
}

function toDiagnostic(message: Message): BundleDiagnostic {
  return {
    file: message.location?.file,
    line: message.location?.line,
    column: message.location?.column,
    message: message.text,
  };
}

const HOST_ENTRY = '__platform_host_entry__.ts';

/** The expression `@platform/server` reads its reported version from when the bundler sets it. */
const PINNED_SDK_GLOBAL = 'globalThis.__PLATFORM_PINNED_SDK_VERSION__';

// The broker keeps the process's stdin open and never writes to it; end of input means the
// broker is gone (even after a SIGKILL), so the process exits instead of living on as an orphan.
const PARENT_WATCHDOG = `const deno = (globalThis as { Deno?: { stdin: { read(b: Uint8Array): Promise<number | null> }; exit(code: number): never } }).Deno;
if (deno) {
  void (async () => {
    const buffer = new Uint8Array(64);
    try {
      while ((await deno.stdin.read(buffer)) !== null);
    } catch {}
    deno.exit(0);
  })();
}
`;

/**
 * Bundles one Function alone with esbuild into a self-contained ESM file for Deno, enforcing the
 * bundling rules of spec 2.3 (see `importRules`). A failure is a `FUNCTION_BUNDLE_FAILED`
 * `PlatformError` whose message lists every problem with file, line and column, and whose
 * `details.diagnostics` carries them as data; the previous bundle is left untouched.
 *
 * @example
 * ```ts
 * await bundleFunction({ appDir, entrypoint: 'functions/hello.ts', sdk: resolveSdk(appDir, '2.6.0'),
 *   outFile: join(appDir, '.platform/functions/hello.js') });
 * ```
 */
export async function bundleFunction(options: BundleOptions): Promise<BundleResult> {
  const started = performance.now();
  const appDir = resolve(options.appDir);
  const entry = resolve(appDir, options.entrypoint);
  const entryDir = dirname(entry);
  const wrap = options.host ?? true;
  // The app folder as seen from the bundle, for the host to cut from the stack traces it logs
  // (`functions/foo.ts:3:9` instead of a `file:` URL); resolved against `import.meta.url`, so no
  // absolute path is written into the bundle.
  const appFromBundle = `${relative(dirname(resolve(options.outFile)), appDir)
    .split(sep)
    .join('/')}/`;
  const hostEntry = [
    `import fn from ${JSON.stringify(`./${relative(entryDir, entry)}`)};`,
    `import { serveFunction } from '@platform/server/host';`,
    `serveFunction(fn, { sourceRoot: new URL(${JSON.stringify(appFromBundle)}, import.meta.url).href });`,
    PARENT_WATCHDOG,
  ].join('\n');
  let result: BuildResult;
  try {
    result = await buildThenIdle({
      absWorkingDir: appDir,
      ...(wrap
        ? {
            stdin: {
              contents: hostEntry,
              resolveDir: entryDir,
              sourcefile: resolve(entryDir, HOST_ENTRY),
              loader: 'ts',
            },
          }
        : { entryPoints: [entry] }),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['@platform/source', 'deno', 'worker', 'browser', 'import'],
      // The SDK's version module reads this global (packages/server/src/version.ts): the Function
      // reports the version platform.yaml pins, not the version of the copy that serves it.
      ...(options.sdk.pinned === undefined
        ? {}
        : { define: { [PINNED_SDK_GLOBAL]: JSON.stringify(options.sdk.pinned) } }),
      // A map beside the bundle (see writeBundleFiles). It names sources relative to the output
      // file; without `outfile` they would be relative to the app folder and Deno would resolve
      // them inside .platform/functions/.
      sourcemap: 'external',
      outfile: resolve(options.outFile),
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [importRules({ appDir, entryDir, sdk: options.sdk, hostEntry: HOST_ENTRY })],
    });
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors;
    if (!messages) throw error;
    const diagnostics = messages.map(toDiagnostic);
    throw new PlatformError({
      code: 'FUNCTION_BUNDLE_FAILED',
      message: `Function ${options.entrypoint} could not be bundled:\n${formatDiagnostics(diagnostics)}`,
      details: {
        entrypoint: options.entrypoint,
        diagnostics: diagnostics.map((d) => ({
          file: d.file ?? null,
          line: d.line ?? null,
          column: d.column ?? null,
          message: d.message,
        })),
      },
    });
  }
  const files = result.outputFiles ?? [];
  const code = files.find((file) => file.path.endsWith('.js'));
  const map = files.find((file) => file.path.endsWith('.map'));
  if (!code || !map) throw new Error('esbuild produced no bundle and source map');
  await mkdir(dirname(options.outFile), { recursive: true });
  await writeBundleFiles(options.outFile, code.contents, map.contents);
  const inputs = Object.keys(result.metafile?.inputs ?? {})
    .filter(
      (file) =>
        !file.includes('node_modules/') && !file.startsWith('..') && !file.endsWith(HOST_ENTRY),
    )
    .map((file) => resolve(appDir, file));
  return {
    outFile: options.outFile,
    inputs,
    milliseconds: Math.round(performance.now() - started),
  };
}
