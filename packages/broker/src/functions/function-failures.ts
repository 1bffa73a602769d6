import { PlatformError } from '@platform/errors';

/**
 * The error for a Function whose process could not be started (or is stopping), quoting the
 * last lines it printed to stderr, where Deno says why.
 */
export function unavailable(
  name: string,
  reason: string,
  stderr: readonly string[] = [],
): PlatformError {
  const tail = stderr.length > 0 ? `\n${stderr.join('\n')}` : '';
  return new PlatformError({
    code: 'FUNCTION_UNAVAILABLE',
    message: `Function "${name}" could not be started: ${reason}.${tail}`,
    details: { function: name },
  });
}

/** The error for a call that ran past its Function's time limit. */
export function callTimedOut(name: string, timeoutMs: number): PlatformError {
  return new PlatformError({
    code: 'FUNCTION_TIMEOUT',
    message: `Function "${name}" did not finish within ${timeoutMs} ms.`,
    details: { function: name, timeoutMs },
  });
}

/** What is known about a call whose connection to the Function's process broke. */
export interface BrokenCall {
  /** The Function's name. */
  readonly name: string;
  /** The process's memory limit in megabytes. */
  readonly memoryMb: number;
  /** The process went past its memory limit. */
  readonly outOfMemory: boolean;
  /** The process was killed because another call on it ran past the time limit. */
  readonly killedForTimeout: boolean;
  /** The process exited (rather than merely becoming unreachable). */
  readonly exited: boolean;
  /** What the connection reported. */
  readonly cause: unknown;
}

/**
 * The error for a call whose connection to the Function's process broke, naming the likeliest
 * reason, most telling first: the memory limit, then a restart forced by another call, then a
 * crash or an unreachable process.
 */
export function brokenCall(call: BrokenCall): PlatformError {
  const { name, cause } = call;
  if (call.outOfMemory) {
    return new PlatformError({
      code: 'FUNCTION_FAILED',
      message: `Function "${name}" exceeded its memory limit of ${call.memoryMb} MB; it is being restarted.`,
      details: { function: name, memoryMb: call.memoryMb },
      cause,
    });
  }
  if (call.killedForTimeout) {
    // This call did nothing wrong: it shared the process with one that hung. Sent again, it
    // reaches the fresh process.
    return new PlatformError({
      code: 'FUNCTION_UNAVAILABLE',
      message: `Function "${name}" was restarted because another call exceeded its time limit; try again.`,
      details: { function: name },
      cause,
    });
  }
  return new PlatformError({
    code: 'FUNCTION_FAILED',
    message: call.exited
      ? `Function "${name}" crashed during the call; it is being restarted.`
      : `Function "${name}" could not be reached.`,
    details: { function: name },
    cause,
  });
}
