import { z } from 'zod';
import { limits } from './limits.ts';
import { type Infer, wrap } from './schema/schema.ts';

/**
 * The input of an integration's webhook Function (`provides.integration.webhook.function`):
 * the request posted to a connection's webhook URL, as the broker forwards it (spec 2.11, 4.2).
 * `headers` are lowercased, without cookies, forwarding and `x-platform-*` headers; `body` is
 * the exact request text, at most 256 KiB. Use it as the Function's `input` schema.
 *
 * @example
 * ```ts
 * import { defineFunction, webhookForwardSchema } from '@platform/server';
 * export default defineFunction({
 *   input: webhookForwardSchema,
 *   handler: ({ input }) => ({ received: input.headers['x-event'] ?? 'unknown' }),
 * });
 * ```
 */
export const webhookForwardSchema = wrap(
  'object',
  z.strictObject({
    method: z.string().min(1),
    headers: z.record(z.string(), z.string()),
    body: z.string().max(limits.integration.webhookBodyMaxBytes),
    receivedAt: z.string().min(1),
  }),
);

/** A forwarded webhook request: the input of a webhook Function. */
export type WebhookForward = Infer<typeof webhookForwardSchema>;
