import { defineFunction, s } from '@platform/server';

/**
 * Receives the CRM's events through the `crm` slot (spec 2.11 payload). Delivery is at least
 * once: an event id seen before is skipped.
 */
export default defineFunction({
  input: s.object({
    id: s.string({ minLength: 1 }),
    type: s.string(),
    occurredAt: s.string(),
    integration: s.string(),
    provider: s.string(),
    bindingId: s.nullable(s.string()),
    data: s.object({ email: s.optional(s.string()), body: s.optional(s.string()) }),
  }),
  handler: async ({ input, data }) => {
    const events = data.table('crm_events');
    if (await events.getById(input.id)) return { duplicate: true };
    if (input.data.email === 'crash@example.com') throw new Error('The handler crashed.');
    await events.create({ id: input.id, type: input.type, email: input.data.email ?? null });
    return { stored: input.id };
  },
});
