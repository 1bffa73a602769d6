import { errorFromResponse, PlatformError, toPlatformError } from '@platform/errors';
import {
  type DeepReadonly,
  type Feature,
  featureSince,
  REQUEST_ID_HEADER,
  type RouteRequest,
  type RouteResponse,
  type RuntimeRouteName,
  runtimeContract,
  SDK_VERSION_HEADER,
  supports,
} from '@platform/schema/contract';
import { fillPath } from '@platform/schema/routes';

/** A `fetch`-compatible function (the global one, or an in-process broker in tests). */
export type FetchLike = (request: Request) => Promise<Response>;

/** What a {@link RuntimeClient} needs from the invocation. */
export interface RuntimeClientOptions {
  readonly brokerUrl: string;
  readonly token: string;
  readonly sdkVersion: string;
  readonly requestId: string;
  /** @default globalThis.fetch */
  readonly fetch?: FetchLike | undefined;
}

type Req<N extends RuntimeRouteName> = DeepReadonly<RouteRequest<(typeof runtimeContract)[N]>>;
type Res<N extends RuntimeRouteName> = RouteResponse<(typeof runtimeContract)[N]>;

/**
 * The one HTTP client of the handler context: every member calls the broker through it. Plain
 * `fetch` (no ky): one request per call, no retries (the broker and the queue own retries), the
 * smallest import on the runtime path, identical in Deno and Node.
 */
export class RuntimeClient {
  readonly sdkVersion: string;
  readonly requestId: string;
  readonly #options: RuntimeClientOptions;

  constructor(options: RuntimeClientOptions) {
    this.#options = options;
    this.sdkVersion = options.sdkVersion;
    this.requestId = options.requestId;
  }

  /** Throws `SDK_VERSION_UNSUPPORTED` unless the pinned SDK has `feature`. */
  requireFeature(feature: Feature, what: string): void {
    requireVersion(this.sdkVersion, featureSince[feature], what);
  }

  /** Calls a JSON route and returns its validated response body. */
  async call<N extends RuntimeRouteName>(
    name: N,
    params: Readonly<Record<string, string>>,
    body: Req<N>,
    timeoutMs?: number,
  ): Promise<Res<N>> {
    const response = await this.#send(name, params, body, timeoutMs);
    const route = runtimeContract[name];
    let json: unknown;
    try {
      json = await response.json();
    } catch (cause) {
      throw this.#invalid(name, cause);
    }
    const parsed = route.response.safeParse(json);
    if (!parsed.success) throw this.#invalid(name, parsed.error);
    return parsed.data as Res<N>;
  }

  /** Calls a streaming route and returns its body. */
  async stream<N extends RuntimeRouteName>(
    name: N,
    params: Readonly<Record<string, string>>,
    body: Req<N>,
  ): Promise<ReadableStream<Uint8Array>> {
    const response = await this.#send(name, params, body, undefined);
    if (!response.body) throw this.#invalid(name, undefined);
    return response.body;
  }

  async #send(
    name: RuntimeRouteName,
    params: Readonly<Record<string, string>>,
    body: unknown,
    timeoutMs: number | undefined,
  ): Promise<Response> {
    const route = runtimeContract[name];
    requireVersion(this.sdkVersion, route.since, name);
    const url = new URL(fillPath(route.path, params), this.#options.brokerUrl);
    const request = new Request(url, {
      method: route.method,
      headers: {
        authorization: `Bearer ${this.#options.token}`,
        'content-type': 'application/json',
        [SDK_VERSION_HEADER]: this.sdkVersion,
        [REQUEST_ID_HEADER]: this.requestId,
      },
      body: JSON.stringify(body),
      ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
    });
    let response: Response;
    try {
      response = await (this.#options.fetch ?? globalThis.fetch)(request);
    } catch (cause) {
      throw transportError(cause, this.requestId);
    }
    if (!response.ok) {
      const error = await errorFromResponse(response);
      throw error.requestId === undefined ? withRequestId(error, this.requestId) : error;
    }
    return response;
  }

  #invalid(name: string, cause: unknown): PlatformError {
    return new PlatformError({
      code: 'INVALID_RESPONSE',
      message: `The broker answered ${name} with a body that does not match the runtime contract.`,
      requestId: this.requestId,
      cause,
    });
  }
}

/** Throws `SDK_VERSION_UNSUPPORTED` when `pinned` is older than `since`. */
export function requireVersion(pinned: string, since: string, what: string): void {
  if (supports(pinned, since)) return;
  throw new PlatformError({
    code: 'SDK_VERSION_UNSUPPORTED',
    message: `${what} needs runtime SDK ${since}, but this Function is pinned to ${pinned}. Raise runtime.sdk.version in platform.yaml.`,
    details: { feature: what, since, pinned },
  });
}

function transportError(cause: unknown, requestId: string): PlatformError {
  const name = typeof cause === 'object' && cause !== null ? (cause as Error).name : '';
  if (name === 'TimeoutError') {
    return new PlatformError({
      code: 'TIMEOUT',
      message: 'The broker did not answer in time.',
      cause,
      requestId,
    });
  }
  if (name === 'AbortError') {
    return new PlatformError({
      code: 'ABORTED',
      message: 'The broker request was aborted.',
      cause,
      requestId,
    });
  }
  const error = toPlatformError(cause, {
    code: 'NETWORK_ERROR',
    message: 'The broker could not be reached.',
  });
  return withRequestId(error, requestId);
}

function withRequestId(error: PlatformError, requestId: string): PlatformError {
  return new PlatformError({
    code: error.code,
    message: error.message,
    status: error.status,
    retryable: error.retryable,
    details: error.details,
    requestId,
    cause: error.cause,
  });
}
