import { defineFunction, s } from '@platform/server';

/**
 * The nightly cron job: counts the notes (a system Function sees every row). Its input is the
 * cron envelope (spec 2.8); `platform invoke tidy` may leave it out.
 */
export default defineFunction({
  input: s.object({
    source: s.optional(s.literal('platform.cron')),
    name: s.optional(s.string()),
    scheduledAt: s.optional(s.string()),
  }),
  handler: async ({ data, log }) => {
    const rows = await data.table('notes').list({ select: ['id'], limit: 1000 });
    log.info('tidy', { notes: rows.length });
    return { notes: rows.length };
  },
});
