// A Function that makes every AI call once; run by the broker (copied into a temp app folder)
// and by the test kit (imported), so both can be compared.
import { defineFunction, s } from '@platform/server';

const digest = async (bytes: Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes)))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');

export default defineFunction({
  input: s.object({ prompt: s.string() }),
  handler: async (ctx) => {
    const { prompt } = ctx.input;
    const text = await ctx.ai.generateText({ prompt, instructions: 'Answer briefly.' });
    const chunks: string[] = [];
    const reader = (await ctx.ai.streamText({ prompt })).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const { object } = await ctx.ai.generateObject({
      prompt,
      schema: s.object({
        id: s.uuid(),
        title: s.string({ minLength: 3, maxLength: 40 }),
        priority: s.enum(['low', 'high']),
        estimate: s.number({ min: 1, max: 8, integer: true }),
        tags: s.array(s.string(), { minItems: 2, maxItems: 3 }),
      }),
    });
    const image = await ctx.ai.generateImage({ prompt });
    return {
      text: text.text,
      streamed: chunks.join(''),
      object,
      image: { contentType: image.contentType, sha256: await digest(image.data) },
    };
  },
});
