import { defineFunction, errors, s } from '@platform/server';

/**
 * `contacts.findByEmail` of the `crm` integration. The connection's credentials arrive as
 * secrets for this call only: a key the CRM does not accept is `unauthorized`, which marks the
 * connection `Reconnect required`. Each lookup is recorded with the connection it ran for.
 */
export default defineFunction({
  input: s.object({ email: s.string({ minLength: 3, maxLength: 254 }) }),
  handler: async ({ input, data, secrets, integration }) => {
    const key = await secrets.require('CRM_API_KEY');
    if (!key.startsWith('crm_')) {
      throw errors.unauthorized('CRM_KEY_REJECTED', 'The CRM does not accept this API key.');
    }
    const region = (await secrets.get('CRM_REGION')) ?? 'eu';
    await data
      .table('lookups')
      .create({ email: input.email, consumer_app_id: integration?.consumerAppId ?? null });
    const [contact] = await data
      .table('contacts')
      .list({ where: { email: input.email }, select: ['email', 'name'], limit: 1 });
    return {
      contact: contact ? { email: String(contact.email), name: String(contact.name) } : null,
      region,
    };
  },
});
