import { errorResponse, PlatformError } from '@platform/errors';
import { hostRoutes } from '@platform/schema/routes';
import type { PlatformFunction } from '../define-function.ts';
import { PLATFORM_SDK_VERSION } from '../version.ts';
import { type HostOptions, runInvocation } from './run-invocation.ts';

/** Options of {@link createFunctionHost}. */
export interface FunctionHostOptions extends HostOptions {
  /**
   * When set, `POST /_platform/invoke` requires `Authorization: Bearer <hostToken>`, so only the
   * broker that started the host can invoke it.
   */
  readonly hostToken?: string | undefined;
}

/** A fetch-style handler, as `Deno.serve`, workers and test servers take. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The function host as a fetch-style handler serving `hostRoutes`: `POST /_platform/invoke`
 * runs one invocation, `GET /_platform/health` answers `{ ok: true, sdkVersion }`.
 *
 * @example
 * ```ts
 * const host = createFunctionHost(myFunction);
 * const response = await host(new Request('http://host/_platform/invoke', {
 *   method: 'POST', body: JSON.stringify(invocation),
 * }));
 * ```
 */
export function createFunctionHost(
  fn: PlatformFunction,
  options: FunctionHostOptions = {},
): FetchHandler {
  const expected = options.hostToken === undefined ? undefined : `Bearer ${options.hostToken}`;
  return async (request) => {
    const pathname = pathOf(request.url);
    if (pathname === hostRoutes.health.path) {
      if (request.method !== hostRoutes.health.method) return methodNotAllowed();
      return Response.json({ ok: true, sdkVersion: PLATFORM_SDK_VERSION });
    }
    if (pathname !== hostRoutes.invoke.path) {
      return errorResponse(
        new PlatformError({ code: 'ROUTE_NOT_FOUND', message: `No host route ${pathname}` }),
      );
    }
    if (request.method !== hostRoutes.invoke.method) return methodNotAllowed();
    if (expected !== undefined && request.headers.get('authorization') !== expected) {
      return errorResponse(
        new PlatformError({
          code: 'INVOCATION_TOKEN_INVALID',
          message: 'The host token is missing or wrong.',
        }),
      );
    }
    let invocation: unknown;
    try {
      invocation = await request.json();
    } catch {
      return errorResponse(
        new PlatformError({
          code: 'INVALID_REQUEST',
          message: 'The invocation is not valid JSON.',
        }),
      );
    }
    return runInvocation(fn, invocation, options);
  };
}

// The path of an absolute request URL, without its query. `new URL()` is a call into Deno's
// runtime and cost a few microseconds of every invocation for this one field.
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.indexOf('?', start);
  return url.slice(start, end < 0 ? undefined : end);
}

function methodNotAllowed(): Response {
  return errorResponse(
    new PlatformError({ code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed.' }),
  );
}
