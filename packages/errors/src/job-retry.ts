import { isErrorCode, retryableCodes } from './codes.ts';
import { isPlatformError } from './platform-error.ts';

/**
 * Whether `failure` carries a platform catalog code that the catalog marks not retryable
 * (`retryable` in codes.ts): sending the same work again cannot change the answer, so no later
 * attempt is made, whether the handler built the error or let a platform call's failure
 * through. `FUNCTION_FAILED` is the exception: it is the code the platform gives a crash it
 * caught (spec 7.1 rule 1), and a crash gets the remaining attempts.
 *
 * @example
 * ```ts
 * refusesRetry(new PlatformError({ code: 'PERMISSION_DENIED', message: 'No' })); // true
 * refusesRetry(new PlatformError({ code: 'STORAGE_UNAVAILABLE', message: 'Later' })); // false
 * refusesRetry(errors.badRequest('BAD_ROW', 'No')); // false: not a catalog code
 * ```
 */
export function refusesRetry(failure: unknown): boolean {
  return (
    isPlatformError(failure) &&
    isErrorCode(failure.code) &&
    failure.code !== 'FUNCTION_FAILED' &&
    !retryableCodes.has(failure.code)
  );
}

/**
 * Whether a failed attempt of a queue consumer gets another attempt (while attempts remain), the
 * one rule the broker and the test kit both apply (docs/jobs.md, "Which failures retry"):
 *
 * - an expected error the consumer throws with its own code: only `errors.unavailable` (HTTP 503,
 *   retryable) retries; `badRequest`, `unauthorized`, `forbidden`, `notFound`, `conflict` and any
 *   other error with the Function's own code end the job (spec 7.1 rule 3);
 * - a platform catalog code, thrown by the consumer or let through from a platform call: retries
 *   only where the catalog marks the code retryable ({@link refusesRetry}), so `INVALID_INPUT`,
 *   `FILE_INPUT_CHANGED`, `PERMISSION_DENIED` or `TABLE_NOT_FOUND` end the job while
 *   `STORAGE_UNAVAILABLE`, `RATE_LIMITED` or `FUNCTION_TIMEOUT` retry;
 * - a crash (a thrown value that is not a `PlatformError`, `FUNCTION_FAILED`) retries, since
 *   delivery is at least once.
 *
 * @example
 * ```ts
 * retriesJob(errors.unavailable('PROVIDER_DOWN', 'Try later')); // true
 * retriesJob(errors.badRequest('BAD_ROW', 'No')); // false
 * retriesJob(new PlatformError({ code: 'PERMISSION_DENIED', message: 'No' })); // false
 * retriesJob(new Error('boom')); // true
 * ```
 */
export function retriesJob(failure: unknown): boolean {
  if (!isPlatformError(failure)) return true;
  if (isErrorCode(failure.code)) return !refusesRetry(failure);
  return failure.status === 503 && failure.retryable;
}
