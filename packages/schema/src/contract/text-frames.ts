import { decodeError, encodeError, PlatformError, toPlatformError } from '@platform/errors';

/**
 * The body of a framed text stream (`ai.streamText`): one JSON object per line, each
 * `{"text":"..."}`, ended by `{"end":true}` or by an error envelope `{"error":{...}}`. Plain text
 * could not say that a provider failed after the first chunk; a frame can, so the Function gets
 * the failure's own code instead of a broken connection.
 */
export const TEXT_FRAMES_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

const encoder = new TextEncoder();
const line = (frame: object) => encoder.encode(`${JSON.stringify(frame)}\n`);

/**
 * Frames `source`: each chunk a text frame, then the end frame, or, when `source` fails, the
 * failure as an error frame (anything that is not a `PlatformError` becomes `INTERNAL`).
 * Cancelling the frames cancels `source`.
 *
 * @example
 * ```ts
 * return new Response(encodeTextFrames(chunks), {
 *   headers: { 'content-type': TEXT_FRAMES_CONTENT_TYPE },
 * });
 * ```
 */
export function encodeTextFrames(source: ReadableStream<string>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.enqueue(line({ end: true }));
          controller.close();
        } else if (value !== '') {
          controller.enqueue(line({ text: value }));
        }
      } catch (error) {
        controller.enqueue(line(encodeError(toPlatformError(error))));
        controller.close();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Reads framed text back into its chunks. An error frame fails the stream with that error
 * (its code, message, details and retryability); a body that ends or breaks before the end
 * frame fails it with `NETWORK_ERROR`. Cancelling the result cancels `body`.
 */
export function decodeTextFrames(
  body: ReadableStream<Uint8Array>,
  requestId?: string,
): ReadableStream<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const broken = (cause?: unknown) =>
    new PlatformError({
      code: 'NETWORK_ERROR',
      message: 'The stream from the broker ended before it was complete.',
      ...(cause === undefined ? {} : { cause }),
      ...(requestId === undefined ? {} : { requestId }),
    });
  let pending = '';
  let ended = false;
  return new ReadableStream<string>({
    async pull(controller) {
      for (;;) {
        const newline = pending.indexOf('\n');
        if (newline >= 0) {
          const frame = parse(pending.slice(0, newline));
          pending = pending.slice(newline + 1);
          if (frame === undefined) return controller.error(broken());
          if ('text' in frame) {
            if (frame.text !== '') return controller.enqueue(frame.text);
            continue;
          }
          ended = true;
          await reader.cancel().catch(() => {});
          if ('end' in frame) return controller.close();
          return controller.error(frameError(frame, requestId));
        }
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (cause) {
          return controller.error(broken(cause));
        }
        if (next.done) return controller.error(broken());
        pending += decoder.decode(next.value, { stream: true });
      }
    },
    async cancel(reason) {
      if (!ended) await reader.cancel(reason);
    },
  });
}

// The envelope carries no status: the code's own status from the catalog stands in for it.
function frameError(frame: { error: object }, requestId: string | undefined): PlatformError {
  const sent = decodeError(500, frame, requestId);
  return new PlatformError({
    code: sent.code,
    message: sent.message,
    retryable: sent.retryable,
    details: sent.details,
    requestId: sent.requestId,
  });
}

type Frame = { text: string } | { end: true } | { error: object };

function parse(text: string): Frame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if ('text' in value && typeof value.text === 'string') return { text: value.text };
  if ('end' in value && value.end === true) return { end: true };
  if ('error' in value && typeof value.error === 'object' && value.error !== null) {
    return value as { error: object };
  }
  return undefined;
}
