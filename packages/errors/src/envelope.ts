import { isJsonObject, type JsonObject } from './json.ts';
import { isPlatformError, PlatformError } from './platform-error.ts';

/**
 * The body of every error response of the platform, with the error's HTTP status as the
 * response status:
 *
 * ```json
 * { "error": { "code": "TODO_NOT_FOUND", "message": "No todo 42", "retryable": false,
 *              "details": { "id": "42" }, "requestId": "req_..." } }
 * ```
 */
export interface ErrorEnvelope {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly retryable: boolean;
    readonly details?: JsonObject;
    readonly requestId?: string;
  };
}

/** Builds the envelope of `error`; `requestId` overrides the one the error carries. */
export function encodeError(error: PlatformError, requestId?: string): ErrorEnvelope {
  const id = requestId ?? error.requestId;
  return {
    error: {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      ...(error.details === undefined ? {} : { details: error.details }),
      ...(id === undefined ? {} : { requestId: id }),
    },
  };
}

/**
 * A Web `Response` carrying `error` as an envelope. Transport-only statuses (0) become 500.
 *
 * @example
 * ```ts
 * return errorResponse(errors.notFound('TODO_NOT_FOUND', 'No such todo'), requestId);
 * ```
 */
export function errorResponse(error: PlatformError, requestId?: string): Response {
  const status = error.status >= 400 && error.status <= 599 ? error.status : 500;
  return new Response(JSON.stringify(encodeError(error, requestId)), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/**
 * Reads an error envelope. Never throws: a body that is not an envelope (HTML from a proxy,
 * truncated JSON, nothing at all) yields a generic error that keeps the HTTP status.
 *
 * @param status - the HTTP status of the response
 * @param body - the response text, or an already-parsed JSON value
 */
export function decodeError(status: number, body: unknown, requestId?: string): PlatformError {
  const parsed = typeof body === 'string' ? parseJson(body) : body;
  const inner = isJsonObject(parsed) ? parsed.error : undefined;
  if (isJsonObject(inner) && typeof inner.code === 'string' && typeof inner.message === 'string') {
    const details = isJsonObject(inner.details) ? inner.details : undefined;
    return new PlatformError({
      code: inner.code,
      message: inner.message,
      status,
      ...(typeof inner.retryable === 'boolean' ? { retryable: inner.retryable } : {}),
      details,
      requestId: typeof inner.requestId === 'string' ? inner.requestId : requestId,
    });
  }
  return genericError(status, requestId);
}

/** Reads the envelope of a failed `Response`; never throws. */
export async function errorFromResponse(response: Response): Promise<PlatformError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  let text = '';
  try {
    text = await response.text();
  } catch {
    // A body that fails mid-read still has a status worth reporting.
  }
  return decodeError(response.status, text, requestId);
}

/**
 * Turns anything thrown into a `PlatformError`. Platform errors pass through unchanged; anything
 * else becomes `code` (default `INTERNAL`) with `message`, keeping the original as `cause`.
 */
export function toPlatformError(
  value: unknown,
  fallback: { code?: string; message?: string } = {},
): PlatformError {
  if (isPlatformError(value)) return value;
  return new PlatformError({
    code: fallback.code ?? 'INTERNAL',
    message: fallback.message ?? 'The platform failed unexpectedly.',
    cause: value,
  });
}

function genericError(status: number, requestId: string | undefined): PlatformError {
  const server = status >= 500 || status < 400;
  return new PlatformError({
    code: server ? 'INVALID_RESPONSE' : 'INVALID_REQUEST',
    message: `The platform answered HTTP ${status} without a readable error.`,
    status,
    retryable: status === 502 || status === 503 || status === 504 || status === 429,
    requestId,
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
