import {
  type Schema,
  type InboundEmail as WireInboundEmail,
  inboundEmailSchema as wireSchema,
} from '@platform/schema';
import type { FileRef } from './context/types.ts';

/**
 * One received message: the input of the inbound email Function (docs/email.md). Each
 * attachment's `file` is a `FileRef` for `ctx.files`.
 */
export type InboundEmail = Omit<WireInboundEmail, 'attachments'> & {
  readonly attachments: (WireInboundEmail['attachments'][number] & { readonly file: FileRef })[];
};

/**
 * The input schema of the inbound email Function (`email.inbound.function`): the payload the
 * broker delivers for each received message, attachments as managed files.
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
// The wire schema checks `file` as a string; the broker makes each one a managed file first, so
// it is a `FileRef` here (the brand exists only in types).
export const inboundEmailSchema = wireSchema as unknown as Schema<InboundEmail, 'object'>;
