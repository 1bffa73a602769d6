import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import type { SdkSource } from './sdk.ts';

const SDK = /^@platform\/server(\/.*)?$/;

function isInside(dir: string, file: string): boolean {
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
 */
export function importRules(options: {
  appDir: string;
  entryDir: string;
  sdk: SdkSource;
  /** File name of the generated host entry, which may import the SDK too. */
  hostEntry?: string;
}): Plugin {
  const { appDir, entryDir, sdk, hostEntry } = options;
  return {
    name: 'platform-import-rules',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point') return undefined;
        const fromHostEntry = hostEntry !== undefined && args.importer.endsWith(hostEntry);
        if (fromHostEntry && SDK.test(args.path)) {
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
          if (!isInside(entryDir, target)) {
            const dir = relative(appDir, entryDir) || '.';
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
