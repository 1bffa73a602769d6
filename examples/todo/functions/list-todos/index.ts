import { defineFunction, s } from '@platform/server';

/** Lists the signed-in user's todos. Placeholder until the example app is fleshed out. */
export default defineFunction({
  input: s.object({}),
  handler: () => ({ ok: true }),
});
