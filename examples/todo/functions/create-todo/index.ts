import { defineFunction, s } from '@platform/server';
import { normaliseTitle } from './title.ts';

/** Creates a todo. Placeholder until the example app is fleshed out. */
export default defineFunction({
  input: s.object({ title: s.string() }),
  handler: ({ input }) => ({ ok: true, title: normaliseTitle(input.title) }),
});
