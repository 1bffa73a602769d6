// A Function that reads `ctx.ai.streamText` to its end and tells what arrived and how the stream
// ended; run by the broker (copied into a temp app folder) and by the test kit (imported), so a
// provider failing midway can be compared in both.
import { defineFunction, PlatformError, s } from '@platform/server';

export default defineFunction({
  input: s.object({ prompt: s.string() }),
  handler: async (ctx) => {
    const received: string[] = [];
    try {
      const reader = (await ctx.ai.streamText({ prompt: ctx.input.prompt })).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received.push(value);
      }
      return { received: received.join(''), failure: null };
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      return {
        received: received.join(''),
        failure: { code: error.code, status: error.status, retryable: error.retryable },
      };
    }
  },
});
