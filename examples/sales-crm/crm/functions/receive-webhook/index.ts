import { defineFunction, errors, webhookForwardSchema } from '@platform/server';

/**
 * The `crm` integration's webhook: what the CRM's upstream posts to a connection's webhook URL.
 * It must name its event and carry the connection's API key (a signature, in a real CRM); the
 * delivery is stored with the connection it arrived for, without the key, and an event with a
 * dotted name is emitted to the apps subscribed to it.
 */
export default defineFunction({
  input: webhookForwardSchema,
  handler: async ({ input, data, secrets, integration }) => {
    const event = input.headers['x-crm-event'];
    if (!event) throw errors.badRequest('CRM_EVENT_MISSING', 'The x-crm-event header is missing.');
    if (input.headers['x-crm-key'] !== (await secrets.require('CRM_API_KEY'))) {
      throw errors.unauthorized('CRM_KEY_MISMATCH', 'The webhook does not carry this key.');
    }
    if (event === 'crash') throw new Error('The CRM webhook handler crashed.');
    const deliveries = event.includes('.')
      ? await integration!.emit({ type: event, id: input.receivedAt, data: { body: input.body } })
      : 0;
    // Store no credential: the key proved this delivery, and a stored copy is one more place to
    // leak it from (a backup, a query, whoever reads the table).
    const { 'x-crm-key': _key, authorization: _authorization, ...headers } = input.headers;
    await data.table('webhook_deliveries').create({
      event,
      headers,
      body: input.body,
      received_at: input.receivedAt,
    });
    return { received: event, deliveries };
  },
});
