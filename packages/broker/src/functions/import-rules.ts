import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import type { SdkSource } from './sdk.ts';

const SDK = /^@platform\/server(\/.*)?$/;

/** Whether `file` lies strictly inside `dir` (both absolute). */
export function isInside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

// Exact name, including case, even on case-insensitive file systems.
function existsExactly(file: string): boolean {
  try {
    return statSync(file).isFile() && readdirSync(dirname(file)).includes(basename(file));
  } catch {
    return false;
  }
}

/**
 * The esbuild plugin enforcing the bundling rules of spec 2.3 on the app's own files: a
 * relative import must stay inside the entrypoint's directory and name an existing file exactly,
 * extension included (no guessing of `.ts` or `index.ts`). Errors carry the importing file and
 * line. `@platform/server` resolves to the SDK copy chosen by `resolveSdk`; other bare imports
 * resolve from the app's own `node_modules` when it has one; `node:` built-ins are left to Deno.
 *
 * One build may bundle several Functions when their entrypoint directories are the same or
 * apart (neither inside another): an app file then lies in exactly one of `entryDirs`, and its
 * imports are judged by that one. With several, a file inside none of them (reached through a
 * linked package) may import nothing relative; bundled alone, it is judged by its one directory.
 */
export function importRules(options: {
  appDir: string;
  /** The entrypoints' directories, the same or apart. */
  entryDirs: readonly string[];
  sdk: SdkSource;
  /** Paths of the generated host entries, which may import the SDK too. */
  hostEntries?: ReadonlySet<string>;
}): Plugin {
  const { appDir, entryDirs, sdk, hostEntries } = options;
  return {
    name: 'platform-import-rules',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (hostEntries?.has(args.importer) && SDK.test(args.path)) {
          const result = await build.resolve(args.path, {
            kind: args.kind,
            resolveDir: sdk.resolveDir,
          });
          return result.errors.length > 0 ? { errors: result.errors } : { path: result.path };
        }
        // Only the app's files follow the app rules; the SDK's own imports resolve normally.
        if (
          !args.importer ||
          !isInside(appDir, args.importer) ||
          args.importer.includes('/node_modules/')
        ) {
          return undefined;
        }
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        if (SDK.test(args.path)) {
          const result = await build.resolve(args.path, {
            kind: args.kind,
            resolveDir: sdk.resolveDir,
          });
          return result.errors.length > 0 ? { errors: result.errors } : { path: result.path };
        }
        if (args.path.startsWith('.') || args.path.startsWith('/')) {
          const target = resolve(args.resolveDir, args.path);
          const entryDir =
            entryDirs.length === 1
              ? entryDirs[0]
              : entryDirs.find((dir) => isInside(dir, args.importer));
          if (entryDir === undefined || !isInside(entryDir, target)) {
            const dir = relative(appDir, entryDir ?? appDir) || '.';
            return {
              errors: [
                {
                  text: `Import "${args.path}" leaves the Function's directory "${dir}"; helper modules must be inside it.`,
                },
              ],
            };
          }
          if (!existsExactly(target)) {
            return {
              errors: [
                {
                  text: `Import "${args.path}" names a missing file; write the exact file name with its extension.`,
                },
              ],
            };
          }
          return { path: target };
        }
        return undefined;
      });
    },
  };
}
