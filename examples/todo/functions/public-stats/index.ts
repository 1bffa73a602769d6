import { defineFunction, s } from '@platform/server';

/** Public counters for the landing page. Placeholder until the example app is fleshed out. */
export default defineFunction({
  input: s.object({}),
  handler: () => ({ ok: true }),
});
