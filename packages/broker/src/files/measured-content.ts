import { createHash, type Hash } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';

/**
 * A file's content as the service takes it: bytes in memory (a Function's call), or a stream
 * that is stored as it arrives (an HTTP upload), never held whole.
 */
export type FileContent = Uint8Array | AsyncIterable<Uint8Array>;

/**
 * The content as the body a store reads, counting and hashing the bytes as they pass and
 * throwing `FILE_TOO_LARGE` past `limits.files.maxBytes` (at once for bytes in memory, at the
 * first byte over for a stream, so a store never keeps a file over the limit).
 */
export function measured(data: FileContent): {
  body: AsyncIterable<Uint8Array>;
  result(): { size: number; sha: string };
} {
  const max = limits.files.maxBytes;
  if (data instanceof Uint8Array && data.byteLength > max) {
    throw new PlatformError({
      code: 'FILE_TOO_LARGE',
      message: `Files are limited to ${max} bytes; this one has ${data.byteLength}.`,
      details: { size: data.byteLength, max },
    });
  }
  const hash: Hash = createHash('sha256');
  let size = 0;
  let done = false;
  async function* body(): AsyncIterable<Uint8Array> {
    const source: AsyncIterable<Uint8Array> | Iterable<Uint8Array> =
      data instanceof Uint8Array ? [data] : data;
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > max) {
        throw new PlatformError({
          code: 'FILE_TOO_LARGE',
          message: `Files are limited to ${max} bytes.`,
          details: { max },
        });
      }
      hash.update(chunk);
      yield chunk;
    }
    done = true;
  }
  return {
    body: body(),
    result: () => {
      // A store that resolved without reading the whole body would record a wrong size.
      if (!done) throw new TypeError('The file store did not read the whole content.');
      return { size, sha: hash.digest('hex') };
    },
  };
}
