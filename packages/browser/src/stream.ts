import type { Deadline } from './request.ts';
import type { PlatformStream } from './types.ts';

/**
 * Wraps the reader of a response body in a stream of our own, so that cancelling it aborts the
 * request, failures become `PlatformError`s, and it is async-iterable in every browser (some
 * lack `ReadableStream.prototype[Symbol.asyncIterator]`).
 */
export function iterableStream(
  opened: Promise<ReadableStreamDefaultReader<Uint8Array>>,
  request: Deadline,
): PlatformStream {
  // The first read reports a failure to open; until then nobody may be listening.
  opened.catch(() => {});
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await (await opened).read();
          if (!done) return controller.enqueue(value);
          request.clear();
          controller.close();
        } catch (error) {
          request.clear();
          controller.error(request.fail(error));
        }
      },
      cancel(reason) {
        request.clear();
        request.abort(reason);
      },
    },
    // Pull only when the consumer reads, so bytes pass through as they arrive.
    { highWaterMark: 0 },
  ) as ReadableStream<Uint8Array> & Partial<AsyncIterable<Uint8Array>>;
  if (!stream[Symbol.asyncIterator]) {
    stream[Symbol.asyncIterator] = async function* () {
      const reader = stream.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        // Leaving the loop early cancels the stream, which aborts the request.
        reader.cancel().catch(() => {});
      }
    };
  }
  return stream as PlatformStream;
}
