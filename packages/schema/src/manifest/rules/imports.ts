import type { RuleContext } from '../context.ts';
import { findImports, positionOf } from '../import-scanner.ts';
import { entrypointProblem, joinPath } from './functions.ts';

/** Modules the bundler follows (other relative files, e.g. JSON, are only checked to exist). */
const followed = /\.(?:ts|tsx|mts|js|mjs|jsx)$/;
/** Extensions tried for an extensionless specifier, to suggest the right file name. */
const guesses = ['.ts', '.tsx', '/index.ts', '.js'];
/** Stop following a Function's imports after this many files (a runaway graph). */
const maxFiles = 2000;

/** Resolves `specifier` against the app-relative file `from`; `undefined` if it leaves the app. */
function resolve(from: string, specifier: string): string | undefined {
  const parts = from.split('/').slice(0, -1);
  for (const segment of specifier.split('/')) {
    if (segment === '.' || segment === '') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else {
      parts.push(segment);
    }
  }
  return parts.join('/');
}

/**
 * Spec 2.3 bundling rules: from each entrypoint, every relative import names an existing file
 * with its exact extension, inside the entrypoint's directory. Reported at the import.
 */
export async function checkImports(ctx: RuleContext): Promise<void> {
  const { host, appDir } = ctx.options;
  if (host === undefined) return;
  const reported = new Set<string>();
  for (const [index, fn] of ctx.manifest.functions.entries()) {
    if (entrypointProblem(fn.entrypoint) !== undefined) continue;
    const dir = fn.entrypoint.split('/').slice(0, -1).join('/');
    const inside = (file: string) => dir === '' || file.startsWith(`${dir}/`);
    const path = ['functions', index, 'entrypoint'] as const;
    const queue = [fn.entrypoint];
    const visited = new Set(queue);
    while (queue.length > 0 && visited.size <= maxFiles) {
      const file = queue.shift()!;
      const source = await host.readFile(joinPath(appDir, file)).catch(() => undefined);
      if (source === undefined) continue;
      for (const site of findImports(source)) {
        const { specifier } = site;
        const relative = specifier.startsWith('./') || specifier.startsWith('../');
        const absolute = specifier.startsWith('/') || specifier.startsWith('file:');
        if (!relative && !absolute) continue;
        const report = (code: Parameters<RuleContext['reportInFile']>[0], message: string) => {
          const key = `${code}:${file}:${site.offset}`;
          if (reported.has(key)) return;
          reported.add(key);
          ctx.reportInFile(code, { file, ...positionOf(source, site.offset), path }, message);
        };
        const target = absolute ? undefined : resolve(file, specifier);
        if (target === undefined || !inside(target)) {
          report(
            'IMPORT_OUTSIDE_FUNCTION_DIR',
            `${file} imports "${specifier}", which is outside ${dir === '' ? 'the app' : `${dir}/`}, the directory of Function "${fn.name}". Each Function is bundled alone: move the module into ${dir === '' ? 'the app' : `${dir}/`} or import a package.`,
          );
          continue;
        }
        if (await host.exists(joinPath(appDir, target))) {
          if (followed.test(target) && !visited.has(target)) {
            visited.add(target);
            queue.push(target);
          }
          continue;
        }
        let guessed: string | undefined;
        for (const ext of guesses) {
          if (await host.exists(joinPath(appDir, target + ext))) {
            guessed = specifier + ext;
            break;
          }
        }
        if (guessed !== undefined) {
          report(
            'IMPORT_EXTENSION_MISSING',
            `${file} imports "${specifier}" without its file extension; write "${guessed}" (imports name the exact file).`,
          );
        } else {
          report(
            'IMPORT_FILE_MISSING',
            `${file} imports "${specifier}", but ${target} does not exist (names are case-sensitive and include the extension).`,
          );
        }
      }
    }
  }
}
