import { limits } from './limits.ts';
import { s } from './schema/helpers.ts';
import type { Infer } from './schema/schema.ts';

const address = s.string({ minLength: 3, maxLength: 320 });
const addresses = s.array(address, { maxItems: limits.email.inbound.maxRecipients });

/**
 * The input of the inbound email Function (`email.inbound.function` in platform.yaml): one
 * received message, as the broker delivers it and as `@platform/server/testing` builds it. Use
 * it as the Function's `input` schema. Attachments are managed files the Function may keep,
 * replace or remove (see docs/email.md).
 *
 * @example
 * ```ts
 * import { defineFunction, inboundEmailSchema } from '@platform/server';
 * export default defineFunction({
 *   input: inboundEmailSchema,
 *   handler: ({ input, log }) => log.info('mail', { from: input.from, subject: input.subject }),
 * });
 * ```
 */
export const inboundEmailSchema = s.object({
  source: s.literal('platform.email'),
  /** The broker's id of this delivery (`inmail_...`). */
  id: s.string({ minLength: 1 }),
  /** When the broker received it (ISO 8601, UTC). */
  receivedAt: s.string({ minLength: 1 }),
  /** The sender's address (the `From` header; the SMTP envelope sender when it has none). */
  from: address,
  /** The sender's display name, if the `From` header has one. */
  fromName: s.nullable(s.string()),
  /** The app's addresses this delivery is for (the SMTP envelope recipients), lower case. */
  to: s.array(address, { minItems: 1, maxItems: limits.email.inbound.maxRecipients }),
  /** Addresses of the `Cc` header. */
  cc: addresses,
  /** The `Reply-To` address, if any. */
  replyTo: s.nullable(address),
  /** The `Subject` header; `''` when absent. */
  subject: s.string(),
  /** The plain text body (derived from the HTML one when only that is present). */
  text: s.nullable(s.string()),
  /** The HTML body, if the message has one. */
  html: s.nullable(s.string()),
  /** The `Message-ID` header, to deduplicate messages a sender retries. */
  messageId: s.nullable(s.string()),
  /** The `In-Reply-To` header. */
  inReplyTo: s.nullable(s.string()),
  /** The message ids of the `References` header. */
  references: s.array(s.string()),
  /** The `Date` header (ISO 8601), if it is a readable date. */
  date: s.nullable(s.string()),
  /** Each attachment, stored as a managed file. */
  attachments: s.array(
    s.object({
      /** The `FileRef` to pass to `ctx.files`. */
      file: s.string({ minLength: 1 }),
      name: s.string({ minLength: 1 }),
      contentType: s.string({ minLength: 1 }),
      size: s.number({ integer: true, min: 0 }),
    }),
    { maxItems: limits.email.inbound.maxAttachments },
  ),
});

/** One received message: the input of the inbound email Function. */
export type InboundEmail = Infer<typeof inboundEmailSchema>;

/** What a received message is made of, before the broker names and stamps it. */
export type InboundEmailFields = Omit<InboundEmail, 'source'>;

/**
 * The payload of the inbound email Function from its fields, checked against
 * {@link inboundEmailSchema}: the one builder the broker and the test kit share, so both hand a
 * Function the same shape. Throws `INVALID_INPUT` for fields that break the schema.
 *
 * @example
 * ```ts
 * const payload = inboundEmailPayload({ ...fields, subject: 'Milk' });
 * ```
 */
export function inboundEmailPayload(fields: InboundEmailFields): InboundEmail {
  return inboundEmailSchema.parse({ source: 'platform.email', ...fields });
}
