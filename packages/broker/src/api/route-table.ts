import type { Manifest } from '@platform/schema/manifest';

/** One declared Function route (platform.yaml `functions[].route`, schema 3). */
export interface AppRoute {
  /** The Function it invokes. */
  readonly function: string;
  /** The declared path, such as `/api/todos/:id`. */
  readonly path: string;
  /** Methods it answers; a `GET` route also answers `HEAD` (spec 4.1). */
  readonly methods: readonly string[];
  readonly segments: readonly string[];
}

/** A matched route: the Function and the path parameters. */
export interface RouteMatch {
  readonly route: AppRoute;
  readonly params: Record<string, string>;
}

const split = (path: string): string[] => (path === '/' ? [] : path.slice(1).split('/'));

/**
 * The Function routes of an app. The validator guarantees that no two routes sharing a method
 * can match the same path (`ROUTE_OVERLAP`), so matching needs no precedence: the first route
 * whose segments fit wins. A path that fits a route but not its method reports the allowed
 * methods, so the caller can answer 405.
 *
 * @example
 * ```ts
 * const table = RouteTable.fromManifest(manifest);
 * table.match('GET', '/api/todos/42'); // { route, params: { id: '42' } }
 * ```
 */
export class RouteTable {
  readonly routes: readonly AppRoute[];

  constructor(routes: readonly AppRoute[]) {
    this.routes = routes;
  }

  /** The routes `functions[].route` declares. */
  static fromManifest(manifest: Manifest): RouteTable {
    const routes: AppRoute[] = [];
    for (const fn of manifest.functions) {
      if (!fn.route) continue;
      const methods = new Set<string>(fn.route.methods);
      if (methods.has('GET')) methods.add('HEAD');
      routes.push({
        function: fn.name,
        path: fn.route.path,
        methods: [...methods],
        segments: split(fn.route.path),
      });
    }
    return new RouteTable(routes);
  }

  /**
   * The route for `method` and `pathname`; `{ allowed }` when routes fit the path but none
   * takes the method; `undefined` when no route fits the path.
   */
  match(method: string, pathname: string): RouteMatch | { allowed: string[] } | undefined {
    const segments = split(pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname);
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = fit(route.segments, segments);
      if (params === undefined) continue;
      if (route.methods.includes(method)) return { route, params };
      allowed.push(...route.methods);
    }
    return allowed.length > 0 ? { allowed: [...new Set(allowed)] } : undefined;
  }
}

function fit(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i]!;
    const have = segments[i]!;
    if (want.startsWith(':')) {
      if (have === '') return undefined;
      let value: string;
      try {
        value = decodeURIComponent(have);
      } catch {
        return undefined;
      }
      params[want.slice(1)] = value;
    } else if (want !== have) return undefined;
  }
  return params;
}
