import { APICallError } from '@ai-sdk/provider';
import { isPlatformError, PlatformError } from '@platform/errors';
import { loadedAiSdk } from './ai-sdk.ts';

/** What the broker's log may say about a provider failure: no key, URL or model name. */
export interface ProviderFailure {
  /** The error the Function receives. */
  readonly error: PlatformError;
  /** A short account for the broker log (still passed through the redactor). */
  readonly reason: string;
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/**
 * Turns whatever a provider call threw into the Function's `PlatformError`: platform errors
 * (bad input) pass through; timeouts, 429 and 5xx become `AI_PROVIDER_UNAVAILABLE` (retryable);
 * output that does not parse becomes `AI_OUTPUT_INVALID` (retryable); anything else
 * `AI_PROVIDER_FAILED`. The provider's own text never reaches the Function.
 */
export function providerFailure(cause: unknown): ProviderFailure {
  if (isPlatformError(cause)) return { error: cause, reason: cause.code };
  // A failure of the SDK's own comes after the call loaded it.
  const sdk = loadedAiSdk();
  const error = sdk?.RetryError.isInstance(cause) ? cause.lastError : cause;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const retryable =
      lostConnection(error.cause) ||
      (status === undefined ? error.isRetryable : RETRYABLE_STATUS.has(status));
    return {
      error: retryable
        ? unavailable(
            status === 429
              ? 'The AI provider is rate limiting requests; try again later.'
              : 'The AI provider is unavailable; try again later.',
          )
        : failed(),
      reason: `provider answered HTTP ${status ?? 'without a status'}: ${error.message}`,
    };
  }
  if (sdk?.NoObjectGeneratedError.isInstance(error)) {
    return {
      error: new PlatformError({
        code: 'AI_OUTPUT_INVALID',
        message: 'The AI provider did not produce a valid JSON object; try again.',
      }),
      reason: `no object generated: ${error.message}`,
    };
  }
  if (sdk?.NoImageGeneratedError.isInstance(error)) {
    return { error: failed(), reason: `no image generated: ${error.message}` };
  }
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'TimeoutError' || name === 'AbortError' || lostConnection(error)) {
    return {
      error: unavailable('The AI provider did not answer in time; try again later.'),
      reason: `${name}: ${message}`,
    };
  }
  return { error: failed(), reason: `${name}: ${message}` };
}

// The provider could not be reached, or its connection dropped, also midway through a streamed
// answer that had begun with a 200 (undici's `terminated`): a retry may well succeed.
function lostConnection(error: unknown): boolean {
  return error instanceof Error && /fetch failed|ECONN|socket|terminated/i.test(error.message);
}

function unavailable(message: string): PlatformError {
  return new PlatformError({ code: 'AI_PROVIDER_UNAVAILABLE', message });
}

function failed(): PlatformError {
  return new PlatformError({
    code: 'AI_PROVIDER_FAILED',
    message: 'The AI provider could not complete the call; the broker log has the cause.',
  });
}
