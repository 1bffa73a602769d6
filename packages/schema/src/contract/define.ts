import type { ErrorCode } from '@platform/errors';
import type { z } from 'zod';
import type { RouteSpec } from '../routes.ts';

/** How a route's successful response body is encoded. */
export type ResponseKind = 'json' | 'text-frames' | 'byte-stream';

/**
 * One route of the runtime contract: where it lives (from the zod-free path table), what it
 * accepts and answers, which error codes it may answer with and the SDK version that added it.
 */
export interface ContractRoute<
  Request extends z.ZodType = z.ZodType,
  Response extends z.ZodType = z.ZodType,
> extends RouteSpec {
  /** Stable name of the route, the key it has in its table. */
  readonly name: string;
  /** One line saying what the route does. */
  readonly summary: string;
  /** The JSON request body (path parameters travel in the path, not here). */
  readonly request: Request;
  /** The JSON response body of a 2xx answer; for streaming routes, `z.never()`. */
  readonly response: Response;
  /** How a 2xx body is encoded. */
  readonly responseKind: ResponseKind;
  /** Codes this route answers with besides {@link commonRouteErrors}. */
  readonly errors: readonly ErrorCode[];
}

/** The JSON request body type of a route. */
export type RouteRequest<R extends ContractRoute> = z.input<R['request']>;
/** The JSON response body type of a route. */
export type RouteResponse<R extends ContractRoute> = z.output<R['response']>;

/**
 * Codes every runtime route may answer with: a malformed body, a missing or expired invocation
 * token, a route newer than the Function's pinned SDK, row-level security, a broker failure.
 */
export const commonRouteErrors = [
  'INVALID_REQUEST',
  'INVOCATION_TOKEN_INVALID',
  'SDK_VERSION_UNSUPPORTED',
  'PERMISSION_DENIED',
  'FEATURE_NOT_AVAILABLE',
  'INTERNAL',
] as const satisfies readonly ErrorCode[];

/** Pairs a path-table entry with its schemas. Internal helper of the contract files. */
export function defineRoute<Request extends z.ZodType, Response extends z.ZodType>(
  name: string,
  spec: RouteSpec,
  parts: {
    summary: string;
    request: Request;
    response: Response;
    responseKind?: ResponseKind;
    errors?: readonly ErrorCode[];
  },
): ContractRoute<Request, Response> {
  return {
    ...spec,
    name,
    summary: parts.summary,
    request: parts.request,
    response: parts.response,
    responseKind: parts.responseKind ?? 'json',
    errors: parts.errors ?? [],
  };
}

/**
 * `T` with every array and object readonly: what a sender may pass for a wire type, so readonly
 * JSON types (such as `JsonObject` of `@platform/errors`) fit the zod-inferred ones.
 */
export type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
