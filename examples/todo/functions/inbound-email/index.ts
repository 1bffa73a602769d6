import { defineFunction, s } from '@platform/server';

/** Receives mail sent to the app. Placeholder until the example app is fleshed out. */
export default defineFunction({
  input: s.object({}),
  handler: () => ({ ok: true }),
});
