import { errorResponse, isPlatformError, PlatformError } from '@platform/errors';
import { formatInputPath } from '@platform/schema';
import { invocationSchema, REQUEST_ID_HEADER, STREAM_HEADER } from '@platform/schema/contract';
import { buildContext } from '../context/create-context.ts';
import type { FetchLike } from '../context/transport.ts';
import type { PlatformFunction } from '../define-function.ts';
import { isStreamResult, toByteStream } from './stream.ts';

/** Options of {@link runInvocation} and `createFunctionHost`. */
export interface HostOptions {
  /**
   * The fetch the context uses to call the broker.
   * @default globalThis.fetch
   */
  readonly fetch?: FetchLike;
  /**
   * The app folder as a URL ending in `/` (the broker passes `file:///…/my-app/`). The stack
   * traces the host logs for unhandled errors name files under it relative to it
   * (`functions/foo.ts:3:9`), the way the developer knows them.
   * @default none: stack traces are logged as the runtime wrote them
   */
  readonly sourceRoot?: string | undefined;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/**
 * Runs one invocation of `fn`: parses the invocation and the input (HTTP 400 before the handler
 * runs), builds the context, runs the handler and answers `{ result }`, a byte stream, or the
 * error envelope. Expected errors keep their code; anything else becomes `FUNCTION_FAILED`,
 * generic in production and with its message in development.
 *
 * @example
 * ```ts
 * const response = await runInvocation(myFunction, invocation);
 * ```
 */
export async function runInvocation(
  fn: PlatformFunction,
  invocation: unknown,
  options: HostOptions = {},
): Promise<Response> {
  const parsed = invocationSchema.safeParse(invocation);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      path: formatInputPath(i.path),
      message: i.message,
      code: i.code,
    }));
    return errorResponse(
      new PlatformError({
        code: 'INVALID_REQUEST',
        message: 'The invocation does not match the runtime contract.',
        details: { issues },
      }),
    );
  }
  const inv = parsed.data;
  const requestId = inv.requestId;
  const input = fn.input.safeParse(inv.input);
  if (!input.success) return withId(errorResponse(input.error, requestId), requestId);

  const { context, flush } = buildContext(inv, input.data, options.fetch);
  const describe = describer(options.sourceRoot);
  const logError = (message: string, error: unknown) =>
    context.log.error(message, { error: describe(error) });
  let result: unknown;
  try {
    result = await fn.handler(context);
  } catch (error) {
    const response = failure(error, inv.environment, requestId, logError);
    await flush();
    return response;
  }
  if (isStreamResult(result)) {
    const body = toByteStream(result, async (error) => {
      if (error !== undefined) logError('The streamed result failed', error);
      await flush();
    });
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'application/octet-stream',
        [STREAM_HEADER]: '1',
        [REQUEST_ID_HEADER]: requestId,
      },
    });
  }
  let text: string;
  try {
    text = JSON.stringify({ result: result === undefined ? null : result });
  } catch (error) {
    const response = failure(
      new PlatformError({
        code: 'FUNCTION_FAILED',
        message: 'The Function returned a value that is not JSON.',
        cause: error,
      }),
      inv.environment,
      requestId,
      logError,
    );
    await flush();
    return response;
  }
  await flush();
  return new Response(text, {
    status: 200,
    headers: { ...JSON_HEADERS, [REQUEST_ID_HEADER]: requestId },
  });
}

function failure(
  error: unknown,
  environment: 'development' | 'production',
  requestId: string,
  logError: (message: string, error: unknown) => void,
): Response {
  if (isPlatformError(error)) return withId(errorResponse(error, requestId), requestId);
  // The caller never sees an unknown production error's message; the developer finds it in the logs.
  logError('Unhandled error in the Function', error);
  const message =
    environment === 'development' && error instanceof Error
      ? error.message
      : environment === 'development'
        ? String(error)
        : 'The Function failed.';
  const generic = new PlatformError({ code: 'FUNCTION_FAILED', message });
  return withId(errorResponse(generic, requestId), requestId);
}

/** How an unhandled error is logged: name, message and stack, paths under `sourceRoot` cut. */
function describer(sourceRoot: string | undefined) {
  const shorten = (stack: string) =>
    sourceRoot === undefined || sourceRoot === '' ? stack : stack.replaceAll(sourceRoot, '');
  return (error: unknown): Record<string, string> => {
    if (error instanceof Error) {
      return {
        name: error.name,
        message: error.message,
        ...(error.stack ? { stack: shorten(error.stack) } : {}),
      };
    }
    return { message: String(error) };
  };
}

function withId(response: Response, requestId: string): Response {
  response.headers.set(REQUEST_ID_HEADER, requestId);
  return response;
}
