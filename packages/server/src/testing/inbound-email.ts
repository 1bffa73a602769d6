import { inboundEmailPayload } from '@platform/schema';
import type { TestContextOptions } from './test-context.ts';

/** A message for {@link receivedEmail}: what a sender writes; the rest has defaults. */
export interface TestEmail {
  readonly from: string;
  readonly fromName?: string | null;
  /** The app's address(es) it is sent to. */
  readonly to: string | readonly string[];
  readonly cc?: readonly string[];
  readonly replyTo?: string | null;
  /** @default '' */
  readonly subject?: string;
  readonly text?: string | null;
  readonly html?: string | null;
  readonly messageId?: string | null;
  readonly inReplyTo?: string | null;
  readonly references?: readonly string[];
  readonly date?: string | null;
  /** Attachments; each becomes a file of the in-memory broker, as the broker stores them. */
  readonly attachments?: readonly {
    readonly name: string;
    readonly contentType?: string;
    readonly data: Uint8Array | string;
  }[];
}

/**
 * Test context options that hand an inbound email Function one received message: the input is
 * built by `inboundEmailPayload`, the builder the broker uses, so it has exactly the shape
 * `platform dev` delivers (docs/email.md), and each attachment is a file of the in-memory
 * broker the Function can download, keep or remove. `options` adds tables and the rest.
 *
 * @example
 * ```ts
 * const { result, ctx } = await runFunction(
 *   inboundEmail,
 *   receivedEmail({ from: 'ann@example.com', to: 'todo@todo.localhost', subject: 'Milk' }, { data: { todos: [] } }),
 * );
 * ```
 */
export function receivedEmail(
  message: TestEmail,
  options: Omit<TestContextOptions, 'input'> = {},
): TestContextOptions {
  const files: Record<string, { data: Uint8Array | string; name: string; contentType: string }> = {
    ...options.files,
  };
  const attachments = (message.attachments ?? []).map((attachment, index) => {
    const id = `file_inbound_${index + 1}`;
    const contentType = attachment.contentType ?? 'application/octet-stream';
    const data = attachment.data;
    files[id] = { data, name: attachment.name, contentType };
    const size =
      typeof data === 'string' ? new TextEncoder().encode(data).byteLength : data.byteLength;
    return { file: id, name: attachment.name, contentType, size };
  });
  const input = inboundEmailPayload({
    id: 'inmail_test',
    receivedAt: new Date(0).toISOString(),
    from: message.from.toLowerCase(),
    fromName: message.fromName ?? null,
    to: (typeof message.to === 'string' ? [message.to] : [...message.to]).map((a) =>
      a.toLowerCase(),
    ),
    cc: [...(message.cc ?? [])],
    replyTo: message.replyTo ?? null,
    subject: message.subject ?? '',
    text: message.text ?? null,
    html: message.html ?? null,
    messageId: message.messageId ?? null,
    inReplyTo: message.inReplyTo ?? null,
    references: [...(message.references ?? [])],
    date: message.date ?? null,
    attachments,
  });
  return { ...options, files, input };
}
