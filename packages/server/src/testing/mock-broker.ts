import { errorResponse, isPlatformError, PlatformError } from '@platform/errors';
import { findJsonInputProblem, formatInputPath, limits } from '@platform/schema';
import {
  type Invocation,
  REQUEST_ID_HEADER,
  type RuntimeRouteName,
  runtimeContract,
  SDK_VERSION_HEADER,
  supports,
  TEXT_FRAMES_CONTENT_TYPE,
} from '@platform/schema/contract';
import { PLATFORM_SDK_VERSION } from '../version.ts';
import { memoryRoutes, type RouteImpl } from './memory-routes.ts';
import { type MemoryBrokerSeed, MemoryState } from './memory-state.ts';

/** Options of {@link createMockBroker}. */
export interface MockBrokerOptions extends MemoryBrokerSeed {
  /** @default 'http://broker.test' */
  readonly url?: string;
  /** The invocation token the broker accepts. @default 'test-invocation-token' */
  readonly token?: string;
  /** The caller the token stands for. @default null (system identity) */
  readonly user?: { readonly id: string } | null;
  /** Replace the in-memory behaviour of single routes (for example to answer an error). */
  readonly routes?: { readonly [N in RuntimeRouteName]?: RouteImpl<N> } | undefined;
}

/** A request the mock broker received, after contract validation. */
export interface ReceivedRequest {
  readonly route: RuntimeRouteName;
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly sdkVersion: string | null;
}

/** A broker that implements the whole runtime contract in memory. */
export interface MockBroker {
  readonly url: string;
  readonly token: string;
  /** Tables, files and everything captured (emails, jobs, logs, events). */
  readonly state: MemoryState;
  /** Every request that reached a route, in order. */
  readonly requests: ReceivedRequest[];
  /** Serves a request (use with msw, `Deno.serve` or as the context's `fetch`). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** An invocation addressed to this broker, for `runInvocation` and hosts. */
  invocation(overrides?: Partial<Invocation>): Invocation;
}

const compiled = (Object.keys(runtimeContract) as RuntimeRouteName[]).map((name) => {
  const route = runtimeContract[name];
  const keys: string[] = [];
  const source = route.path.replace(/:([A-Za-z]\w*)/g, (_, key: string) => {
    keys.push(key);
    return '([^/]+)';
  });
  return { name, route, keys, pattern: new RegExp(`^${source}$`) };
});

/**
 * A mock broker generated from the runtime contract: every route of `runtimeContract` is
 * matched by its method and path, authorised by the invocation token, gated by the SDK version
 * header, and has its request and response checked against the contract's schemas. Behaviour is
 * in memory, with the real broker's semantics.
 *
 * @example
 * ```ts
 * const broker = createMockBroker({ data: { todos: [] } });
 * const response = await runInvocation(myFunction, broker.invocation({ input: { title: 'a' } }), {
 *   fetch: broker.fetch,
 * });
 * broker.state.tables.get('todos'); // [{ id: '...', title: 'a' }]
 * ```
 */
export function createMockBroker(options: MockBrokerOptions = {}): MockBroker {
  const url = options.url ?? 'http://broker.test';
  const token = options.token ?? 'test-invocation-token';
  const userId = options.user?.id ?? null;
  const state = new MemoryState(options);
  const requests: ReceivedRequest[] = [];

  const handle = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    const match = compiled.find(
      (c) => c.route.method === request.method && c.pattern.test(pathname),
    );
    if (!match)
      throw new PlatformError({ code: 'ROUTE_NOT_FOUND', message: `No runtime route ${pathname}` });
    if (request.headers.get('authorization') !== `Bearer ${token}`) {
      throw new PlatformError({
        code: 'INVOCATION_TOKEN_INVALID',
        message: 'The invocation token is not valid.',
      });
    }
    const sdkVersion = request.headers.get(SDK_VERSION_HEADER);
    if (sdkVersion !== null && !supports(sdkVersion, match.route.since)) {
      throw new PlatformError({
        code: 'SDK_VERSION_UNSUPPORTED',
        message: `${match.name} needs runtime SDK ${match.route.since}; the Function is pinned to ${sdkVersion}.`,
      });
    }
    const values = match.pattern.exec(pathname)?.slice(1) ?? [];
    const params = Object.fromEntries(
      match.keys.map((key, i) => [key, decodeURIComponent(values[i] ?? '')]),
    );
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      throw new PlatformError({ code: 'INVALID_REQUEST', message: 'The body is not valid JSON.' });
    }
    // The broker's rules for every JSON body (depth, NUL, `__proto__`, non-finite numbers).
    const problem = findJsonInputProblem(json);
    if (problem) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: problem.message,
        details: { path: problem.path, maxDepth: limits.json.maxDepth },
      });
    }
    const body = match.route.request.safeParse(json);
    if (!body.success) {
      const issues = body.error.issues.map((i) => ({
        path: formatInputPath(i.path),
        message: i.message,
        code: i.code,
      }));
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: `Invalid ${match.name} body`,
        details: { issues },
      });
    }
    requests.push({ route: match.name, params, body: body.data, sdkVersion });
    const impl = (options.routes?.[match.name] ??
      memoryRoutes[match.name]) as RouteImpl<RuntimeRouteName>;
    const result = await impl({ params, body: body.data as never, state, userId });
    if (result instanceof ReadableStream) {
      return new Response(result, { headers: { 'content-type': TEXT_FRAMES_CONTENT_TYPE } });
    }
    // A response the contract rejects is a bug of the mock, not of the SDK: fail loudly.
    return Response.json(match.route.response.parse(result));
  };

  return {
    url,
    token,
    state,
    requests,
    async fetch(request) {
      const requestId = request.headers.get(REQUEST_ID_HEADER) ?? undefined;
      try {
        return await handle(request);
      } catch (error) {
        const platform = isPlatformError(error)
          ? error
          : new PlatformError({ code: 'INTERNAL', message: String(error), cause: error });
        return errorResponse(platform, requestId);
      }
    },
    invocation(overrides = {}) {
      return {
        requestId: 'req_test',
        function: 'test',
        sdkVersion: PLATFORM_SDK_VERSION,
        environment: 'development',
        input: {},
        user: options.user ?? null,
        job: null,
        http: null,
        integration: null,
        broker: { url, token },
        declared: {
          secrets: Object.keys(options.secrets ?? {}),
          searches: {},
          emailAliases: [],
        },
        ...overrides,
      };
    },
  };
}
