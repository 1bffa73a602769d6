import type { RuleContext } from '../context.ts';
import { firstDuplicates } from './duplicates.ts';

/** Whether an entrypoint is a relative, normalised `.ts`/`.tsx` path inside the app. */
export function entrypointProblem(entrypoint: string): string | undefined {
  if (entrypoint.includes('\\')) return 'use / as the path separator';
  if (entrypoint.startsWith('/') || /^[A-Za-z]:/.test(entrypoint)) {
    return 'must be relative to the app directory';
  }
  const segments = entrypoint.split('/');
  if (segments.some((s) => s === '..')) return 'must stay inside the app directory (no ..)';
  if (segments.some((s) => s === '' || s === '.') && entrypoint !== '.') {
    return 'must be a normalised path (no empty or . segments)';
  }
  if (!/\.tsx?$/.test(entrypoint)) return 'must name a TypeScript file ending in .ts or .tsx';
  return undefined;
}

/** Spec 2.3: unique names, well-formed entrypoints that exist. */
export async function checkFunctions(ctx: RuleContext): Promise<void> {
  const { host, appDir } = ctx.options;
  const { functions } = ctx.manifest;
  for (const [i, first] of firstDuplicates(functions, (fn) => fn.name)) {
    ctx.report(
      'FUNCTION_NAME_DUPLICATE',
      ['functions', i, 'name'],
      `Function name "${functions[i]!.name}" is already used by functions[${first}]; Function names must be unique.`,
    );
  }
  for (const [i, fn] of functions.entries()) {
    const problem = entrypointProblem(fn.entrypoint);
    if (problem !== undefined) {
      ctx.report(
        'FUNCTION_ENTRYPOINT_INVALID',
        ['functions', i, 'entrypoint'],
        `Entrypoint "${fn.entrypoint}" ${problem}, e.g. functions/${fn.name}/index.ts.`,
      );
      continue;
    }
    if (host !== undefined && !(await host.exists(joinPath(appDir, fn.entrypoint)))) {
      ctx.report(
        'FUNCTION_ENTRYPOINT_MISSING',
        ['functions', i, 'entrypoint'],
        `Entrypoint "${fn.entrypoint}" of Function "${fn.name}" does not exist in the app directory; create it or fix the path (names are case-sensitive).`,
      );
    }
  }
}

/** Joins an app directory and an app-relative `/` path. */
export function joinPath(dir: string, relative: string): string {
  if (dir === '' || dir === '.') return relative;
  return `${dir.replace(/[\\/]+$/, '')}/${relative}`;
}
