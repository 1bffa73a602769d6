import { defineFunction, s } from '@platform/server';

/** Receives mail sent to the app (the payload is not fixed by the spec yet; logged only). */
export default defineFunction({
  input: s.object({}),
  handler: async ({ log }) => {
    log.info('inbound email received');
    return { ok: true };
  },
});
