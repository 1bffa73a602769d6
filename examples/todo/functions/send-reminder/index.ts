import { defineFunction, s } from '@platform/server';

/** Queue consumer of `reminders`. Placeholder until the example app is fleshed out. */
export default defineFunction({
  input: s.object({ todoId: s.uuid() }),
  handler: () => ({ ok: true }),
});
