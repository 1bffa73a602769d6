import { errorResponse, isPlatformError, PlatformError } from '@platform/errors';
import type { FunctionAccess } from '@platform/schema/contract';
import { browserRoutes, type RouteSpec } from '@platform/schema/routes';
import { delay, type HttpHandler, HttpResponse, http } from 'msw';
import type { CurrentUser } from '../types.ts';

/** The broker routes the mock serves, named as in `browserRoutes`. */
export type MockRoute = 'session' | 'functionCall' | 'functionStream';

/** What a mocked Function sees besides its input. */
export interface MockContext {
  /** The user whose token came with the call, or `null` for an anonymous call. */
  readonly user: CurrentUser | null;
}

/**
 * A mocked Function: returns (or resolves to) its result. Returning or throwing a
 * `PlatformError` answers with that error's envelope, as the real broker does. The input is
 * typed by the mock itself (`({ id }: { id: string }) => ...`); the broker does not parse it.
 */
// `never` as the parameter type lets each mock declare the input type it expects.
export type MockFunction = (input: never, context: MockContext) => unknown;

/** A mocked streaming Function: the chunks it writes, strings encoded as UTF-8. */
export type MockStreamFunction = (
  input: never,
  context: MockContext,
) => Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

/**
 * How the next request to a route fails: with a `PlatformError` (its envelope and status), a
 * bare HTTP status, a network error, or a request that never answers (the SDK's timeout fires).
 */
export type MockFailure = PlatformError | number | 'network' | 'timeout';

/** One request the mock broker received. */
export interface MockRequest {
  readonly route: MockRoute;
  /** The Function name, for Function routes. */
  readonly name?: string;
  /** The bearer token sent, or `null` for an anonymous request. */
  readonly token: string | null;
}

/**
 * Options of {@link createMockBroker}.
 *
 * @example
 * ```ts
 * createMockBroker({ user: { id: 'u1' }, functions: { echo: (input) => input } });
 * ```
 */
export interface MockBrokerOptions {
  /**
   * The app origin to answer on.
   * @default any origin
   */
  readonly appUrl?: string;
  /**
   * The signed-in user at the start.
   * @default null (signed out)
   */
  readonly user?: CurrentUser | null;
  /** Function results by Function name. */
  readonly functions?: Readonly<Record<string, MockFunction>>;
  /** Streaming Functions by name. */
  readonly streams?: Readonly<Record<string, MockStreamFunction>>;
  /**
   * Each Function's manifest `access`. `user` Functions answer 401 `AUTH_REQUIRED` without a
   * valid token; `system` Functions answer 403 `FUNCTION_NOT_CALLABLE`.
   * @default 'user' for every Function
   */
  readonly access?: Readonly<Record<string, FunctionAccess>>;
  /**
   * Lifetime of each issued token in milliseconds.
   * @default 3600000 (one hour, spec 2.1)
   */
  readonly tokenTtlMs?: number;
  /**
   * The broker's clock (epoch milliseconds); fake timers of the test runner also drive it.
   * @default () => Date.now()
   */
  readonly now?: () => number;
}

/**
 * A mock session broker and Function host for tests of a frontend, as msw request handlers.
 * Its state stands for one browser's HttpOnly session cookie.
 */
export interface MockBroker {
  /** The msw handlers: pass them to `setupServer` (Node) or `setupWorker` (browser). */
  readonly handlers: HttpHandler[];
  /** Every request received so far, oldest first. */
  readonly requests: readonly MockRequest[];
  /** Starts a new session for `user`; earlier tokens stop working. */
  signIn(user: CurrentUser): void;
  /** Ends the session: the session route answers "no user" and tokens stop working. */
  signOut(): void;
  /**
   * Makes the auth service definitively reject the session: the session route answers 401
   * `AUTH_REQUIRED` until the next `signIn`, and tokens stop working.
   */
  expireSession(): void;
  /** Makes the next `times` requests to `route` fail with `failure`. */
  failNext(route: MockRoute, failure: MockFailure, times?: number): void;
  /** How many requests `route` has received. */
  count(route: MockRoute): number;
}

/**
 * Creates a mock broker built on the browser route table of the runtime contract.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { errors } from '@platform/errors';
 * import { createMockBroker } from '@platform/browser/testing';
 *
 * const broker = createMockBroker({
 *   user: { id: 'u1', displayName: 'Ada' },
 *   functions: {
 *     getTodo: ({ id }: { id: string }) =>
 *       id === '1' ? { id, title: 'Write tests' } : errors.notFound('TODO_NOT_FOUND', `No todo ${id}`),
 *   },
 *   access: { getTodo: 'user' },
 * });
 * const server = setupServer(...broker.handlers);
 * server.listen();
 * broker.expireSession(); // the next refresh is rejected: the app is signed out
 * ```
 */
export function createMockBroker(options: MockBrokerOptions = {}): MockBroker {
  const now = options.now ?? (() => Date.now());
  const ttl = options.tokenTtlMs ?? 3_600_000;
  const requests: MockRequest[] = [];
  const failures: Array<{ route: MockRoute; failure: MockFailure }> = [];
  // Tokens of the current session with their expiry; a new session forgets the old ones.
  let tokens = new Map<string, number>();
  let user: CurrentUser | null = options.user ?? null;
  let rejected = false;
  let sessionId = 1;
  let issued = 0;

  const reset = (next: CurrentUser | null, reject = false) => {
    user = next;
    rejected = reject;
    tokens = new Map();
    sessionId++;
  };

  const pattern = (route: RouteSpec) =>
    options.appUrl ? new URL(route.path, options.appUrl).href : `*${route.path}`;

  const fail = async (route: MockRoute): Promise<Response | undefined> => {
    const index = failures.findIndex((entry) => entry.route === route);
    if (index < 0) return undefined;
    const failure = failures.splice(index, 1)[0]!.failure;
    if (failure === 'network') return HttpResponse.error();
    if (failure === 'timeout') {
      await delay('infinite');
      return undefined;
    }
    if (typeof failure === 'number') return new Response(null, { status: failure });
    return errorResponse(failure);
  };

  const caller = (request: Request): { token: string | null; valid: boolean } => {
    const header = request.headers.get('authorization');
    const token = header?.startsWith('Bearer ') ? header.slice(7) : null;
    const expiry = token === null ? undefined : tokens.get(token);
    return { token, valid: expiry !== undefined && expiry > now() };
  };

  const invoke = async (request: Request, route: MockRoute, name: string) => {
    const { token, valid } = caller(request);
    requests.push({ route, name, token });
    const failed = await fail(route);
    if (failed) return { response: failed };
    const fn = route === 'functionStream' ? options.streams?.[name] : options.functions?.[name];
    if (!fn) return { response: error('FUNCTION_NOT_FOUND', `No Function named ${name}.`) };
    const access = options.access?.[name] ?? 'user';
    if (access === 'system') {
      return {
        response: error(
          'FUNCTION_NOT_CALLABLE',
          `${name} is a system Function; browsers cannot call it.`,
        ),
      };
    }
    if (token !== null && !valid) {
      return { response: error('AUTH_REQUIRED', 'The session token is expired or revoked.') };
    }
    if (access === 'user' && !valid) {
      return { response: error('AUTH_REQUIRED', `${name} needs a signed-in user.`) };
    }
    let input: unknown;
    try {
      input = await request.json();
    } catch {
      return { response: error('INVALID_REQUEST', 'The input is not JSON.') };
    }
    return { run: () => fn(input as never, { user: valid ? user : null }) };
  };

  const handlers = [
    http.post(pattern(browserRoutes.session), async () => {
      requests.push({ route: 'session', token: null });
      const failed = await fail('session');
      if (failed) return failed;
      if (rejected) return error('AUTH_REQUIRED', 'The session was revoked.');
      if (!user) return HttpResponse.json({ user: null, token: null, expiresAt: null });
      const token = `mock-token-${sessionId}-${++issued}`;
      const expiresAt = now() + ttl;
      tokens.set(token, expiresAt);
      return HttpResponse.json({ user, token, expiresAt: new Date(expiresAt).toISOString() });
    }),
    http.post(pattern(browserRoutes.functionCall), async ({ request, params }) => {
      const outcome = await invoke(request, 'functionCall', String(params.name));
      if (outcome.response) return outcome.response;
      try {
        const result = await outcome.run();
        if (isPlatformError(result)) return errorResponse(result);
        return HttpResponse.json({ result: result ?? null });
      } catch (thrown) {
        return failure(thrown);
      }
    }),
    http.post(pattern(browserRoutes.functionStream), async ({ request, params }) => {
      const outcome = await invoke(request, 'functionStream', String(params.name));
      if (outcome.response) return outcome.response;
      let chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;
      try {
        chunks = outcome.run() as typeof chunks;
      } catch (thrown) {
        return failure(thrown);
      }
      return new Response(toStream(chunks), {
        headers: { 'content-type': 'application/octet-stream' },
      });
    }),
  ];

  return {
    handlers,
    requests,
    signIn: (next) => reset(next),
    signOut: () => reset(null),
    expireSession: () => reset(null, true),
    failNext(route, failure, times = 1) {
      for (let i = 0; i < times; i++) failures.push({ route, failure });
    },
    count: (route) => requests.filter((request) => request.route === route).length,
  };
}

function error(code: string, message: string): Response {
  return errorResponse(new PlatformError({ code, message }));
}

function failure(thrown: unknown): Response {
  if (isPlatformError(thrown)) return errorResponse(thrown);
  return error('FUNCTION_FAILED', 'The Function failed with an unexpected error.');
}

function toStream(
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator =
    Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? encoder.encode(value) : value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
