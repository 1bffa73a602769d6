import type { JsonObject } from './json.ts';
import { PlatformError } from './platform-error.ts';

const CODE_PATTERN = /^[A-Z][A-Z0-9_]*$/;

function helper(status: number, retryable: boolean) {
  return <Code extends string>(
    code: Code,
    message: string,
    details?: JsonObject,
  ): PlatformError<Code> => {
    // Misuse by the programmer, not a runtime failure: a TypeError, as in jose.
    if (typeof code !== 'string' || !CODE_PATTERN.test(code)) {
      throw new TypeError(`Error code must be UPPER_SNAKE_CASE, got ${JSON.stringify(code)}`);
    }
    if (typeof message !== 'string') throw new TypeError('Error message must be a string');
    return new PlatformError({ code, message, status, retryable, details });
  };
}

/**
 * Expected failures a Function throws so that they reach the caller with their code, message and
 * details. Each helper returns the error; `throw` it. Only `unavailable` is retryable, and in a
 * queue consumer it is the only one that schedules another attempt (see `retriesJob`).
 *
 * @example
 * ```ts
 * const todo = await ctx.data.table('todos').getById(ctx.input.id);
 * if (!todo) throw errors.notFound('TODO_NOT_FOUND', `No todo ${ctx.input.id}`);
 * ```
 */
export const errors = {
  /** HTTP 400: the caller sent something wrong. */
  badRequest: helper(400, false),
  /** HTTP 401: credentials are missing or rejected. In an integration Function it marks the connection `Reconnect required`. */
  unauthorized: helper(401, false),
  /** HTTP 403: the caller may not do this. */
  forbidden: helper(403, false),
  /** HTTP 404: the thing does not exist or is not visible to the caller. */
  notFound: helper(404, false),
  /** HTTP 409: the request conflicts with the current state. */
  conflict: helper(409, false),
  /** HTTP 503, retryable: try again later. A queue consumer that throws it is retried. */
  unavailable: helper(503, true),
} as const;
