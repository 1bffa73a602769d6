import { reservedPathPrefixes, reservedPrefixOf } from '../../routes.ts';
import type { RuleContext } from '../context.ts';

/**
 * Path prefixes the platform serves itself (spec 4.1: `/_platform/api/session`,
 * `/rest/v1/<table>`, the owner API under `/v1`); a Function route may not live under them.
 *
 * @deprecated Read `reservedPathPrefixes` of `@platform/schema/routes`, the one list.
 */
export const reservedRoutePrefixes = reservedPathPrefixes;

interface DeclaredRoute {
  readonly index: number;
  readonly name: string;
  readonly path: string;
  readonly segments: readonly string[];
  readonly methods: ReadonlySet<string>;
}

const isParam = (segment: string) => segment.startsWith(':');

/** The pattern with parameter names erased: `/todos/:id` and `/todos/:todoId` are the same. */
const shape = (segments: readonly string[]) =>
  segments.map((s) => (isParam(s) ? ':' : s)).join('/');

/** Whether some URL path matches both patterns (same length; literals equal where both literal). */
function overlaps(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => isParam(s) || isParam(b[i]!) || s === b[i]);
}

/** GET routes also answer HEAD, so HEAD counts as declared wherever GET is. */
function effectiveMethods(methods: readonly string[]): Set<string> {
  const set = new Set(methods);
  if (set.has('GET')) set.add('HEAD');
  return set;
}

/** Spec 2.3 and 4.1: schema-3 Function routes. */
export function checkRoutes(ctx: RuleContext): void {
  const routes: DeclaredRoute[] = [];
  for (const [index, fn] of ctx.manifest.functions.entries()) {
    const route = fn.route;
    if (route === undefined) continue;
    const at = ['functions', index, 'route'] as const;
    if (fn.access === 'system') {
      ctx.report(
        'ROUTE_ON_SYSTEM_FUNCTION',
        [...at],
        `Function "${fn.name}" has access: system, so no caller can reach its route; use access: public or user, or remove the route.`,
        'key',
      );
    }
    // Compared case-insensitively: the broker reads `/V1/...` as its own path too.
    const reserved = reservedPrefixOf(route.path);
    if (reserved !== undefined) {
      ctx.report(
        'ROUTE_PATH_RESERVED',
        [...at, 'path'],
        `Route path "${route.path}" is under ${reserved}/, which the platform reserves; choose another path such as /api/...`,
      );
      continue;
    }
    const segments = route.path === '/' ? [] : route.path.slice(1).split('/');
    const params = new Set<string>();
    for (const segment of segments.filter(isParam)) {
      if (params.has(segment)) {
        ctx.report(
          'ROUTE_PARAM_DUPLICATE',
          [...at, 'path'],
          `Route path "${route.path}" uses ${segment} twice; give each parameter its own name.`,
        );
      }
      params.add(segment);
    }
    const seen = new Set<string>();
    route.methods.forEach((method, m) => {
      if (seen.has(method)) {
        ctx.report(
          'ROUTE_METHOD_DUPLICATE',
          [...at, 'methods', m],
          `Method ${method} is listed twice.`,
        );
      }
      seen.add(method);
    });
    routes.push({
      index,
      name: fn.name,
      path: route.path,
      segments,
      methods: effectiveMethods(route.methods),
    });
  }

  for (const [j, b] of routes.entries()) {
    for (const a of routes.slice(0, j)) {
      const common = [...b.methods].filter((m) => a.methods.has(m));
      if (common.length === 0 || !overlaps(a.segments, b.segments)) continue;
      const same = shape(a.segments) === shape(b.segments);
      ctx.report(
        same ? 'ROUTE_DUPLICATE' : 'ROUTE_OVERLAP',
        ['functions', b.index, 'route', 'path'],
        same
          ? `Route ${common.join('/')} ${b.path} of Function "${b.name}" duplicates the route ${a.path} of Function "${a.name}" (functions[${a.index}]); each method and path may belong to one Function.`
          : `Route ${common.join('/')} ${b.path} of Function "${b.name}" overlaps ${a.path} of Function "${a.name}" (functions[${a.index}]): some URL paths match both. Make a literal segment differ (e.g. /todos/by-id/:id).`,
      );
      break;
    }
  }
}
