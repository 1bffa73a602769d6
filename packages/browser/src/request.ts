import { errorFromResponse, isPlatformError, PlatformError } from '@platform/errors';

/** The parts of {@link createPlatform}'s options every request needs. */
export interface Transport {
  /** Absolute URL of a path on the app's origin. */
  readonly url: (path: string) => string;
  readonly fetch: typeof fetch;
  readonly now: () => number;
}

/** A request in flight: its merged signal, and how to end it. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Stops the timer and, unless `keepSignal`, lets go of the caller's signal. */
  readonly clear: (keepSignal?: boolean) => void;
  /** Aborts the request. */
  readonly abort: (reason?: unknown) => void;
  /** Turns whatever the request threw into a `PlatformError`. */
  readonly fail: (error: unknown) => PlatformError;
}

const timedOut = Symbol('timeout');

/**
 * Combines the caller's `signal` with a timeout of `ms`, so a failure can tell the caller's
 * abort (`ABORTED`) from the timeout (`TIMEOUT`) and from the network (`NETWORK_ERROR`).
 * Uses `setTimeout` rather than `AbortSignal.timeout` so fake clocks drive it in tests.
 */
export function deadline(signal: AbortSignal | undefined, ms: number): Deadline {
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  const timer = setTimeout(() => controller.abort(timedOut), ms);
  if (signal?.aborted) abort();
  signal?.addEventListener('abort', abort);
  return {
    signal: controller.signal,
    clear(keepSignal) {
      clearTimeout(timer);
      if (!keepSignal) signal?.removeEventListener('abort', abort);
    },
    abort: (reason) => controller.abort(reason),
    fail(error) {
      if (isPlatformError(error)) return error;
      const [code, message] = signal?.aborted
        ? ['ABORTED', 'The request was aborted.']
        : controller.signal.reason === timedOut
          ? ['TIMEOUT', `The request did not finish within ${ms} ms.`]
          : ['NETWORK_ERROR', 'The platform could not be reached.'];
      return new PlatformError({ code, message, cause: error });
    },
  };
}

/** An `INVALID_RESPONSE` error for a 2xx answer the SDK cannot read. */
export function invalidResponse(status: number, cause?: unknown): PlatformError {
  return new PlatformError({
    code: 'INVALID_RESPONSE',
    message: `The platform answered HTTP ${status} with a body the SDK cannot read.`,
    status,
    cause,
  });
}

/** Resolves with a 2xx `Response`, or throws the `PlatformError` of the error envelope. */
export async function ensureOk(response: Response): Promise<Response> {
  if (response.ok) return response;
  throw await errorFromResponse(response);
}
