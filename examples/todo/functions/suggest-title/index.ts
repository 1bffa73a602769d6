import { defineFunction, s } from '@platform/server';

/**
 * Suggests a short todo title for a rough description. Under `platform dev` with no AI
 * configured the offline AI answers (pinned for one prompt in ai-fixtures.yaml); set
 * PLATFORM_AI_BASE_URL and PLATFORM_AI_MODEL to ask a real model (docs/ai.md).
 */
export default defineFunction({
  input: s.object({ description: s.string({ minLength: 1, maxLength: 2000 }) }),
  handler: async ({ input, ai }) => {
    const { object } = await ai.generateObject({
      // The description comes first: it is what the title is about.
      prompt: `${input.description}\n\nSuggest a short title (at most 60 characters) for the todo described above.`,
      schema: s.object({ title: s.string({ minLength: 1, maxLength: 60 }) }),
    });
    // Models add quotes and line breaks; a title has neither.
    return {
      title: object.title
        .replace(/["\n\r]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    };
  },
});
