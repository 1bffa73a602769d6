import { PlatformError } from '@platform/errors';
import { describe, expect, it } from 'vitest';
import { decodeTextFrames, encodeTextFrames } from '../../src/contract/text-frames.ts';

const strings = (parts: readonly (string | Error)[]) =>
  new ReadableStream<string>({
    pull(controller) {
      const next = parts[0];
      parts = parts.slice(1);
      if (next === undefined) controller.close();
      else if (typeof next === 'string') controller.enqueue(next);
      else controller.error(next);
    },
  });

const bytes = (text: string, chunkSize = 3) => {
  const all = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= all.length) return controller.close();
      controller.enqueue(all.slice(at, at + chunkSize));
      at += chunkSize;
    },
  });
};

async function read(stream: ReadableStream<string>) {
  const received: string[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { received, error: undefined };
      received.push(value);
    }
  } catch (error) {
    return { received, error: error as PlatformError };
  }
}

describe('text frames', () => {
  it('carry text (multi-byte characters split anywhere) and its end', async () => {
    const { received, error } = await read(
      decodeTextFrames(encodeTextFrames(strings(['Grüße, ', '世界', '\n"quoted"']))),
    );
    expect(error).toBeUndefined();
    expect(received).toEqual(['Grüße, ', '世界', '\n"quoted"']);
  });

  it('carry a failure after the first chunk with its code, status and retryability', async () => {
    const failure = new PlatformError({ code: 'AI_PROVIDER_UNAVAILABLE', message: 'try later' });
    const { received, error } = await read(
      decodeTextFrames(encodeTextFrames(strings(['Once upon ', failure])), 'req_1'),
    );
    expect(received).toEqual(['Once upon ']);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      code: 'AI_PROVIDER_UNAVAILABLE',
      status: 503,
      retryable: true,
      message: 'try later',
      requestId: 'req_1',
    });
  });

  it('turn a failure that is not a PlatformError into INTERNAL, without its message', async () => {
    const { error } = await read(
      decodeTextFrames(encodeTextFrames(strings([new Error('secret provider URL')]))),
    );
    expect(error?.code).toBe('INTERNAL');
    expect(error?.message).not.toContain('secret');
  });

  it('fail a body cut before its end frame, or not made of frames, with NETWORK_ERROR', async () => {
    const cut = await read(decodeTextFrames(bytes('{"text":"Once"}\n{"text":"up')));
    expect(cut.received).toEqual(['Once']);
    expect(cut.error?.code).toBe('NETWORK_ERROR');
    const plain = await read(decodeTextFrames(bytes('plain text\n')));
    expect(plain.error?.code).toBe('NETWORK_ERROR');
  });
});
