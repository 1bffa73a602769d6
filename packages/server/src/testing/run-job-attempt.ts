import { isPlatformError, PlatformError, retriesJob } from '@platform/errors';
import type { PlatformFunction } from '../define-function.ts';
import { createTestContext, type TestContext, type TestContextOptions } from './test-context.ts';

/** What the broker does after one attempt of a queue consumer, as {@link runJobAttempt} tells. */
export type JobAttemptOutcome<R> =
  | { readonly outcome: 'succeeded'; readonly result: Awaited<R>; readonly ctx: TestContext }
  | {
      /**
       * `retry`: another attempt while the queue's `maxAttempts` allows (else `dead_lettered`);
       * `dead_lettered`: the job ends now.
       */
      readonly outcome: 'retry' | 'dead_lettered';
      /** The job's latest error, as the broker records it. */
      readonly error: PlatformError;
      readonly ctx: TestContext;
    };

/**
 * Runs a queue consumer once, as attempt `job.attempt` of a job, and says what the broker would
 * do next, by the same rule the broker applies (docs/jobs.md, "Which failures retry"):
 * `errors.unavailable` retries, every other expected error ends the job, a payload the schema
 * rejects ends it, and a crash or an uncaught platform-call failure retries.
 *
 * @example
 * ```ts
 * const attempt = await runJobAttempt(sendEmail, { input: { userId }, data: { users: [] } });
 * expect(attempt).toMatchObject({ outcome: 'dead_lettered', error: { code: 'USER_GONE' } });
 * ```
 */
export async function runJobAttempt<R>(
  fn: PlatformFunction<never, R> | PlatformFunction,
  options: TestContextOptions = {},
): Promise<JobAttemptOutcome<R>> {
  const ctx = createTestContext({
    ...options,
    job: options.job ?? { id: 'job_test', queue: 'test', attempt: 1 },
  });
  try {
    const result = (await (fn as PlatformFunction).run(ctx)) as Awaited<R>;
    return { outcome: 'succeeded', result, ctx };
  } catch (failure) {
    // Like the broker in development: an unknown thrown value is FUNCTION_FAILED with its message.
    const error = isPlatformError(failure)
      ? failure
      : new PlatformError({
          code: 'FUNCTION_FAILED',
          message: failure instanceof Error ? failure.message : String(failure),
          cause: failure,
        });
    return { outcome: retriesJob(failure) ? 'retry' : 'dead_lettered', error, ctx };
  }
}
