import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { PlatformError } from '@platform/errors';
import type { BuildResult, Message, Plugin } from 'esbuild';
import { placeBundleFiles, removeAbandonedFiles } from './bundle-files.ts';
import { buildThenIdle } from './esbuild-service.ts';
import { importRules, isInside } from './import-rules.ts';
import type { SdkSource } from './sdk.ts';

/** One problem found while bundling, located in the app's source. */
export interface BundleDiagnostic {
  /** Path relative to the app folder. */
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly message: string;
}

/** One Function's bundle: its entrypoint and the file to write. */
export interface BundleTarget {
  /** The Function's `entrypoint` from platform.yaml, relative to the app folder. */
  readonly entrypoint: string;
  /** The bundle to write (replaced atomically); its source map goes beside it. */
  readonly outFile: string;
}

/** How to bundle, whatever the Functions. */
export interface BundleSettings {
  /** The app folder; diagnostics name files relative to it. */
  readonly appDir: string;
  /** Where `@platform/server` comes from (see `resolveSdk`). */
  readonly sdk: SdkSource;
  /**
   * Wrap the Function in the `@platform/server/host` entry so the bundle serves it
   * (docs/runtime-contract.md 1.3). Off only for tests of the rules themselves.
   * @default true
   */
  readonly host?: boolean;
}

/** What to bundle: one Function. */
export interface BundleOptions extends BundleSettings, BundleTarget {}

/** What to bundle: several Functions. */
export interface BundleManyOptions extends BundleSettings {
  readonly targets: readonly BundleTarget[];
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

// The host entry of a Function is a module of its own directory that exists only in the build.
const HOST_ENTRY = /__platform_host_entry__\.[^/\\]*\.ts$/;
const hostEntryPath = (entryDir: string, outFile: string) =>
  resolve(entryDir, `__platform_host_entry__.${basename(outFile, '.js')}.ts`);

/** The expression `@platform/server` reads its reported version from when the bundler sets it. */
const PINNED_SDK_GLOBAL = 'globalThis.__PLATFORM_PINNED_SDK_VERSION__';

/** Builds of this process so far: names what each writes before its files move into place. */
let buildCount = 0;

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
export function bundleFunction(options: BundleOptions): Promise<BundleResult> {
  return bundleAlone(options, options);
}

/**
 * Bundles several Functions, each into a self-contained file exactly as {@link bundleFunction}
 * would, but parses what they share (the SDK above all) once: Functions whose directories are the
 * same or apart are built together by one esbuild build. Resolves or fails per Function, with the
 * same answers as {@link bundleFunction}: when a build together fails, each of its Functions is
 * bundled alone again to name its own problems.
 *
 * @example
 * ```ts
 * const [hello, bye] = bundleFunctions({ appDir, sdk, targets: [
 *   { entrypoint: 'functions/hello/index.ts', outFile: '.platform/functions/hello.js' },
 *   { entrypoint: 'functions/bye/index.ts', outFile: '.platform/functions/bye.js' },
 * ] });
 * ```
 */
export function bundleFunctions(options: BundleManyOptions): Promise<BundleResult>[] {
  const results = new Map<BundleTarget, Promise<BundleResult>>();
  for (const group of buildGroups(options.appDir, options.targets)) {
    if (group.length === 1) {
      const [target] = group as [BundleTarget];
      results.set(target, bundleAlone(options, target));
      continue;
    }
    const together = build(options, group);
    group.forEach((target, index) => {
      results.set(
        target,
        together.then((built) =>
          built.ok ? (built.results[index] as BundleResult) : bundleAlone(options, target),
        ),
      );
    });
  }
  return options.targets.map((target) => results.get(target) as Promise<BundleResult>);
}

/**
 * Splits `targets` into groups one build can serve: the same output folder, no output file
 * twice, and entrypoint directories that are the same or apart, so each app file is judged by
 * one directory (see `importRules`).
 */
function buildGroups(appDir: string, targets: readonly BundleTarget[]): BundleTarget[][] {
  const groups: {
    outDir: string;
    dirs: Set<string>;
    outFiles: Set<string>;
    targets: BundleTarget[];
  }[] = [];
  for (const target of targets) {
    const dir = dirname(resolve(appDir, target.entrypoint));
    const outFile = resolve(target.outFile);
    const outDir = dirname(outFile);
    const fits = (group: (typeof groups)[number]) =>
      group.outDir === outDir &&
      !group.outFiles.has(outFile) &&
      [...group.dirs].every(
        (other) => other === dir || !(isInside(other, dir) || isInside(dir, other)),
      );
    let group = groups.find(fits);
    if (!group) {
      group = { outDir, dirs: new Set(), outFiles: new Set(), targets: [] };
      groups.push(group);
    }
    group.dirs.add(dir);
    group.outFiles.add(outFile);
    group.targets.push(target);
  }
  return groups.map((group) => group.targets);
}

async function bundleAlone(settings: BundleSettings, target: BundleTarget): Promise<BundleResult> {
  const built = await build(settings, [target]);
  if (built.ok) return built.results[0] as BundleResult;
  const diagnostics = built.messages.map(toDiagnostic);
  throw new PlatformError({
    code: 'FUNCTION_BUNDLE_FAILED',
    message: `Function ${target.entrypoint} could not be bundled:\n${formatDiagnostics(diagnostics)}`,
    details: {
      entrypoint: target.entrypoint,
      diagnostics: diagnostics.map((d) => ({
        file: d.file ?? null,
        line: d.line ?? null,
        column: d.column ?? null,
        message: d.message,
      })),
    },
  });
}

type Built =
  | { readonly ok: true; readonly results: readonly BundleResult[] }
  | { readonly ok: false; readonly messages: readonly Message[] };

/** One esbuild build of `targets` (one group of {@link buildGroups}), written when it succeeds. */
async function build(settings: BundleSettings, targets: readonly BundleTarget[]): Promise<Built> {
  const started = performance.now();
  const appDir = resolve(settings.appDir);
  const wrap = settings.host ?? true;
  buildCount += 1;
  const run = buildCount;
  const entries = targets.map((target) => {
    const entry = resolve(appDir, target.entrypoint);
    const entryDir = dirname(entry);
    const outFile = resolve(target.outFile);
    // esbuild writes beside the bundle under a name of this build's own, moved into place after.
    const written = `.${basename(outFile, '.js')}.${process.pid}-${run}`;
    return { entry, entryDir, outFile, written, host: hostEntryPath(entryDir, outFile) };
  });
  const outDir = dirname((entries[0] as (typeof entries)[number]).outFile);
  // The app folder as seen from the bundle, for the host to cut from the stack traces it logs
  // (`functions/foo.ts:3:9` instead of a `file:` URL); resolved against `import.meta.url`, so no
  // absolute path is written into the bundle.
  const appFromBundle = `${relative(outDir, appDir).split(sep).join('/')}/`;
  const hostEntries = new Map(
    entries.map(({ entry, entryDir, host }) => [
      host,
      [
        `import fn from ${JSON.stringify(`./${relative(entryDir, entry).split(sep).join('/')}`)};`,
        `import { serveFunction } from '@platform/server/host';`,
        `serveFunction(fn, { sourceRoot: new URL(${JSON.stringify(appFromBundle)}, import.meta.url).href });`,
        PARENT_WATCHDOG,
      ].join('\n'),
    ]),
  );
  let result: BuildResult;
  try {
    result = await buildThenIdle({
      absWorkingDir: appDir,
      entryPoints: entries.map(({ entry, written, host }) => ({
        in: wrap ? host : entry,
        out: written,
      })),
      outdir: outDir,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['@platform/source', 'deno', 'worker', 'browser', 'import'],
      // The SDK's version module reads this global (packages/server/src/version.ts): the Function
      // reports the version platform.yaml pins, not the version of the copy that serves it.
      ...(settings.sdk.pinned === undefined
        ? {}
        : { define: { [PINNED_SDK_GLOBAL]: JSON.stringify(settings.sdk.pinned) } }),
      // A map beside each bundle (see placeBundleFiles), naming sources relative to it. Written
      // by esbuild itself: megabytes of code and maps per Function never pass through memory.
      sourcemap: 'external',
      write: true,
      metafile: true,
      logLevel: 'silent',
      plugins: [
        ...(wrap ? [hostEntryPlugin(hostEntries)] : []),
        importRules({
          appDir,
          entryDirs: [...new Set(entries.map(({ entryDir }) => entryDir))],
          sdk: settings.sdk,
          hostEntries: new Set(hostEntries.keys()),
        }),
      ],
    });
  } catch (error) {
    const messages = (error as { errors?: Message[] }).errors;
    if (!messages) throw error;
    return { ok: false, messages };
  }
  const outputs = result.metafile?.outputs ?? {};
  const inputsOf = (file: string) =>
    Object.entries(outputs).find(([path]) => resolve(appDir, path) === file)?.[1].inputs ?? {};
  const milliseconds = Math.round(performance.now() - started);
  const results = await Promise.all(
    entries.map(async ({ outFile, written }, index) => {
      const code = join(outDir, `${written}.js`);
      await placeBundleFiles(outFile, { code, map: `${code}.map` });
      const inputs = Object.keys(inputsOf(code))
        .filter(
          (file) =>
            !file.includes('node_modules/') && !file.startsWith('..') && !HOST_ENTRY.test(file),
        )
        .map((file) => resolve(appDir, file));
      return { outFile: (targets[index] as BundleTarget).outFile, inputs, milliseconds };
    }),
  );
  await removeAbandonedFiles(outDir);
  return { ok: true, results };
}

/** Serves each Function's host entry, a module that exists only in the build. */
function hostEntryPlugin(contents: ReadonlyMap<string, string>): Plugin {
  return {
    name: 'platform-host-entry',
    setup(build) {
      build.onResolve({ filter: HOST_ENTRY }, (args) =>
        contents.has(args.path) ? { path: args.path } : undefined,
      );
      build.onLoad({ filter: HOST_ENTRY }, (args) => {
        const text = contents.get(args.path);
        return text === undefined
          ? undefined
          : { contents: text, loader: 'ts', resolveDir: dirname(args.path) };
      });
    },
  };
}
