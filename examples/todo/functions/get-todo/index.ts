import { defineFunction, s } from '@platform/server';

/** Reads one todo by the :id route parameter. Placeholder until the example app is fleshed out. */
export default defineFunction({
  input: s.object({}),
  handler: () => ({ ok: true }),
});
