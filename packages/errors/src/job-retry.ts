import { isErrorCode } from './codes.ts';
import { isPlatformError } from './platform-error.ts';

// Platform codes that say this job can never succeed, whichever attempt runs it: the payload no
// longer matches the consumer's schema, or a delegated file was replaced after the grant.
const terminalPlatformCodes: ReadonlySet<string> = new Set(['INVALID_INPUT', 'FILE_INPUT_CHANGED']);

/**
 * Whether a failed attempt of a queue consumer gets another attempt (while attempts remain), the
 * one rule the broker and the test kit both apply (docs/jobs.md, "Which failures retry"):
 *
 * - an expected error the consumer throws with its own code: only `errors.unavailable` (HTTP 503,
 *   retryable) retries; `badRequest`, `unauthorized`, `forbidden`, `notFound`, `conflict` and any
 *   other error with the Function's own code end the job (spec 7.1 rule 3);
 * - `INVALID_INPUT` and `FILE_INPUT_CHANGED` end the job: no later attempt can change them;
 * - anything else the platform catches (spec 7.1 rule 1) retries, since delivery is at least
 *   once: a thrown value that is not a `PlatformError`, a crash, a timeout, a lost attempt, and a
 *   platform-call failure the handler let through (any other catalog code), retryable or not.
 *
 * @example
 * ```ts
 * retriesJob(errors.unavailable('PROVIDER_DOWN', 'Try later')); // true
 * retriesJob(errors.badRequest('BAD_ROW', 'No')); // false
 * retriesJob(new Error('boom')); // true
 * ```
 */
export function retriesJob(failure: unknown): boolean {
  if (!isPlatformError(failure)) return true;
  if (terminalPlatformCodes.has(failure.code)) return false;
  if (isErrorCode(failure.code)) return true;
  return failure.status === 503 && failure.retryable;
}
