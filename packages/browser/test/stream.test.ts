import { isPlatformError } from '@platform/errors';
import { describe, expect, it } from 'vitest';
import { gate, setup, useMsw } from './helpers.ts';

const ada = { id: 'u1' };
const server = useMsw();
const decoder = new TextDecoder();

// A slow, long stream: msw buffers mocked bodies without backpressure, so it must not be endless.
async function* ticks() {
  for (let i = 0; i < 400; i++) {
    yield 'tick';
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('functions.stream', () => {
  it('delivers bytes incrementally, before the Function has finished', async () => {
    const second = gate();
    let finished = false;
    const { platform } = setup(server, {
      user: ada,
      streams: {
        story: async function* () {
          yield 'once ';
          await second.opened;
          yield 'upon a time';
          finished = true;
        },
      },
    });
    const reader = platform.functions.stream('story', {}).getReader();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('once ');
    expect(finished).toBe(false);
    second.release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += decoder.decode(chunk.value);
    }
    expect(rest).toBe('upon a time');
    expect(finished).toBe(true);
  });

  it('is async-iterable', async () => {
    const { platform } = setup(server, {
      user: ada,
      streams: { count: () => ['1', '2', '3'] },
    });
    const chunks: string[] = [];
    for await (const chunk of platform.functions.stream('count', {}))
      chunks.push(decoder.decode(chunk));
    expect(chunks.join('')).toBe('123');
  });

  // An endless stream, and the signal of every request the SDK sends for it.
  const endlessStream = () => {
    const signals: AbortSignal[] = [];
    const { platform } = setup(
      server,
      { user: ada, streams: { forever: ticks } },
      {
        fetch: (input, init) => {
          if (init?.signal) signals.push(init.signal);
          return fetch(input, init);
        },
      },
    );
    return { platform, signals };
  };

  it('aborts the request when cancelled', async () => {
    const { platform, signals } = endlessStream();
    const stream = platform.functions.stream('forever', {});
    const reader = stream.getReader();
    expect(decoder.decode((await reader.read()).value)).toBe('tick');
    await reader.cancel('enough');
    expect(signals.at(-1)?.aborted).toBe(true);
  });

  it('aborts the request when a for-await loop is left early', async () => {
    const { platform, signals } = endlessStream();
    for await (const chunk of platform.functions.stream('forever', {})) {
      expect(decoder.decode(chunk)).toBe('tick');
      break;
    }
    expect(signals.at(-1)?.aborted).toBe(true);
  });

  it('reports errors before the stream starts as a PlatformError from the first read', async () => {
    const { platform } = setup(server, { streams: { story: () => ['x'] } });
    const reader = platform.functions.stream('story', {}).getReader();
    const error = await reader.read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isPlatformError(error, 'AUTH_REQUIRED')).toBe(true);
  });

  it('ends with ABORTED when the caller signal fires mid-stream', async () => {
    const { platform } = setup(server, {
      user: ada,
      streams: {
        forever: ticks,
      },
    });
    const controller = new AbortController();
    const reader = platform.functions
      .stream('forever', {}, { signal: controller.signal })
      .getReader();
    await reader.read();
    controller.abort();
    const error = await (async () => {
      for (;;) await reader.read();
    })().catch((e: unknown) => e);
    expect(isPlatformError(error, 'ABORTED')).toBe(true);
  });
});
