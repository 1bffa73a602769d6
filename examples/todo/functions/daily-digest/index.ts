import { defineFunction, s } from '@platform/server';

/** Cron Function of `daily-digest`: counts open todos. Its input is the cron envelope (spec 2.8). */
export default defineFunction({
  input: s.object({
    source: s.literal('platform.cron'),
    name: s.string(),
    scheduledAt: s.string(),
  }),
  handler: async ({ input, data, secrets, log }) => {
    const open = await data.table('todos').list({ where: { done: false }, limit: 1000 });
    const signed = (await secrets.get('DIGEST_SIGNING_KEY')) !== undefined;
    log.info('daily digest', { open: open.length, scheduledAt: input.scheduledAt, signed });
    return { open: open.length };
  },
});
