import { defineFunction, s } from '@platform/server';

/**
 * Cron Function of `daily-digest`. Its input schema accepts the whole cron envelope (spec 2.8).
 * Placeholder until the example app is fleshed out.
 */
export default defineFunction({
  input: s.object({
    source: s.literal('platform.cron'),
    name: s.string(),
    scheduledAt: s.string(),
  }),
  handler: () => ({ ok: true }),
});
