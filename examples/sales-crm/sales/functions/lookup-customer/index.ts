import { defineFunction, s } from '@platform/server';

/** Looks a customer up in the CRM through the app's `crm` slot. */
export default defineFunction({
  input: s.object({ email: s.string({ minLength: 3, maxLength: 254 }) }),
  handler: async ({ input, integrations }) =>
    integrations.use('crm').call('contacts.findByEmail', { email: input.email }),
});
