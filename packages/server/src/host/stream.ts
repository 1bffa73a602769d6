/** True for what the host streams: a `ReadableStream` or any async iterable (not a string). */
export function isStreamResult(
  value: unknown,
): value is ReadableStream<unknown> | AsyncIterable<unknown> {
  if (value instanceof ReadableStream) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

const encoder = new TextEncoder();

function toChunk(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return encoder.encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw new TypeError('A streamed Function result may only yield strings or Uint8Array chunks');
}

/**
 * The bytes of a streaming handler result. Strings are UTF-8 encoded. `done` runs once the
 * stream ends, fails or is cancelled (the host sends buffered logs then).
 */
export function toByteStream(
  source: ReadableStream<unknown> | AsyncIterable<unknown>,
  done: (error?: unknown) => Promise<void>,
): ReadableStream<Uint8Array> {
  const iterator =
    source instanceof ReadableStream ? readerIterator(source) : source[Symbol.asyncIterator]();
  let finished = false;
  const finish = async (error?: unknown) => {
    if (finished) return;
    finished = true;
    await done(error);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          await finish();
          controller.close();
        } else {
          controller.enqueue(toChunk(next.value));
        }
      } catch (error) {
        await finish(error);
        controller.error(error);
      }
    },
    async cancel(reason) {
      await iterator.return?.(reason);
      await finish();
    },
  });
}

function readerIterator(stream: ReadableStream<unknown>): AsyncIterator<unknown> {
  const reader = stream.getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<unknown>>,
    return: async (reason?: unknown) => {
      await reader.cancel(reason);
      return { done: true, value: undefined };
    },
  };
}
