import { isPlatformError, retriesJob } from '@platform/errors';
import { limits } from '@platform/schema';
import type { QueueDeclaration } from '@platform/schema/manifest';

/** Where jobs live: idempotency, the active-jobs limit and concurrency all count per scope. */
export interface JobScope {
  readonly appId: string;
  readonly environment: 'development' | 'production';
  /** The development namespace (`default` on the local broker) or `production`. */
  readonly namespace: string;
}

/** The policy a job keeps from the queue declaration it was enqueued under (spec 9). */
export interface PinnedPolicy {
  readonly maxAttempts: number;
  readonly concurrency: number;
  readonly retryDelaySeconds: number;
  readonly retryBackoff: boolean;
  readonly timeoutSeconds: number;
}

/** The latest error of a job as stored: `{ code, message }` plus the HTTP status it had. */
export interface StoredError {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

/** A queue declaration's policy, with the manifest defaults of `limits.queues` filled in. */
export function policyOf(queue: Partial<QueueDeclaration>): PinnedPolicy {
  const q = limits.queues;
  return {
    maxAttempts: queue.maxAttempts ?? q.maxAttempts.default,
    concurrency: queue.concurrency ?? q.concurrency.default,
    retryDelaySeconds: queue.retryDelaySeconds ?? q.retryDelaySeconds.default,
    retryBackoff: queue.retryBackoff ?? q.retryBackoff.default,
    timeoutSeconds: queue.timeoutSeconds ?? q.timeoutSeconds.default,
  };
}

/**
 * Seconds to wait after attempt `failedAttempt` (1-based) failed. Without backoff every wait is
 * `retryDelaySeconds`; with backoff the wait doubles between later attempts (attempt 1 → 2 waits
 * the delay, 2 → 3 twice it, 3 → 4 four times it), capped at `limits.queues.retryDelaySeconds.max`.
 *
 * @example
 * ```ts
 * retryDelaySeconds({ retryDelaySeconds: 30, retryBackoff: true }, 3); // 120
 * ```
 */
export function retryDelaySeconds(
  policy: Pick<PinnedPolicy, 'retryDelaySeconds' | 'retryBackoff'>,
  failedAttempt: number,
): number {
  const factor = policy.retryBackoff ? 2 ** Math.max(0, failedAttempt - 1) : 1;
  return Math.min(policy.retryDelaySeconds * factor, limits.queues.retryDelaySeconds.max);
}

/** The same cap in SQL, for rows recovered from an expired lease (`attempt` is the failed one). */
export const retryDelaySql = `LEAST(${limits.queues.retryDelaySeconds.max}::bigint,
  retry_delay_seconds::bigint * CASE WHEN retry_backoff THEN power(2, GREATEST(attempt - 1, 0))::bigint ELSE 1 END)`;

/** What to do with a failed attempt (spec 3.1, 7.1 rule 3). */
export interface FailureVerdict {
  /** `true`: another attempt if any remain; `false`: dead-letter now. */
  readonly retry: boolean;
  readonly error: StoredError;
}

/**
 * Classifies a failed attempt with {@link retriesJob}, the rule the test kit applies too:
 * `errors.unavailable` retries, every other expected error of the consumer is terminal, a
 * platform catalog code retries only where the catalog marks it retryable, and a crash retries.
 */
export function classifyFailure(failure: unknown): FailureVerdict {
  const retry = retriesJob(failure);
  if (isPlatformError(failure)) {
    return { retry, error: boundedError(failure.code, failure.message, failure.status) };
  }
  const message = failure instanceof Error ? failure.message : String(failure);
  return { retry, error: boundedError('FUNCTION_FAILED', message, 500) };
}

/** An error cut to the stored bounds: code 64 characters, message `limits.jobs.errorMaxLength`. */
export function boundedError(code: string, message: string, status = 500): StoredError {
  const max = limits.jobs.errorMaxLength;
  const text = message.length > max ? `${message.slice(0, max - 1)}…` : message;
  return { code: code.slice(0, 64), message: text, status };
}
