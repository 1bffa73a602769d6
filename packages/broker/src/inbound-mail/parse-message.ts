import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { AddressObject, ParsedMail } from 'mailparser';

/** A received message, read: what the payload and the stored row are made of. */
export interface ParsedMessage {
  readonly from: string;
  readonly fromName: string | null;
  readonly cc: string[];
  /** Every address of `To` and `Cc` (lower case), to find the app's when no envelope names them. */
  readonly headerRecipients: string[];
  readonly replyTo: string | null;
  readonly subject: string;
  readonly text: string | null;
  readonly html: string | null;
  readonly messageId: string | null;
  readonly inReplyTo: string | null;
  readonly references: string[];
  readonly date: string | null;
  readonly attachments: { name: string; contentType: string; data: Uint8Array }[];
}

// C0 controls and DEL: no file name holds one (a NUL cannot even be stored), so a name with
// one is a broken or hostile message, not a name to store.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const CONTROL = /[\u0000-\u001f\u007f]/;

// RFC 5322 2.2: a header field name is printable US-ASCII except the colon. A message whose
// first line is not one has no header section: it is not an email.
const HEADER_LINE = /^[\x21-\x39\x3b-\x7e]+[ \t]*:/;

const invalid = (message: string, details?: Record<string, string>) =>
  new PlatformError({
    code: 'EMAIL_MESSAGE_INVALID',
    message,
    ...(details ? { details } : {}),
  });

/** The addresses of one header (`To`, `Cc`, `Reply-To`), lower case. */
function addressesOf(header: AddressObject | AddressObject[] | undefined): string[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const out: string[] = [];
  for (const object of objects) {
    for (const entry of object.value) {
      if (entry.address) out.push(entry.address.toLowerCase());
      // A group (`Team: a@x, b@x;`) holds its members.
      for (const member of entry.group ?? []) {
        if (member.address) out.push(member.address.toLowerCase());
      }
    }
  }
  return out;
}

/**
 * Reads one message (RFC 5322 with MIME, as `mailparser` understands it). Refuses with
 * `EMAIL_MESSAGE_TOO_LARGE` a message over `limits.email.inbound.messageMaxBytes` or with more
 * than `maxAttachments` attachments, and with `EMAIL_MESSAGE_INVALID` one without a header
 * section, without a sender (neither a `From` address nor `envelopeFrom`), with an attachment
 * whose name holds a control character, or that the parser cannot read.
 */
export async function parseMessage(
  raw: Uint8Array,
  envelopeFrom: string | null,
): Promise<ParsedMessage> {
  const { messageMaxBytes, maxAttachments } = limits.email.inbound;
  if (raw.byteLength > messageMaxBytes) {
    throw new PlatformError({
      code: 'EMAIL_MESSAGE_TOO_LARGE',
      message: `The message is ${raw.byteLength} bytes; inbound email takes at most ${messageMaxBytes}.`,
      details: { size: raw.byteLength, max: messageMaxBytes },
    });
  }
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const firstLine = buffer.subarray(0, 1000).toString('latin1').split(/\r?\n/, 1)[0] ?? '';
  if (!HEADER_LINE.test(firstLine)) {
    throw invalid(
      'The message has no header section: it must start with header fields such as "From: a@example.com".',
    );
  }
  let parsed: ParsedMail;
  try {
    // Loaded with the first message: most runs receive none, and it is the broker's largest import.
    const { simpleParser } = await import('mailparser');
    parsed = await simpleParser(buffer, { skipImageLinks: true, skipTextToHtml: true });
  } catch (error) {
    throw invalid(`The message cannot be read as MIME: ${(error as Error).message}`);
  }
  const fromEntry = parsed.from?.value.find((entry) => entry.address);
  const from = fromEntry?.address?.toLowerCase() ?? envelopeFrom?.toLowerCase() ?? null;
  if (!from) throw invalid('The message has no sender: its From header holds no address.');
  if (parsed.attachments.length > maxAttachments) {
    throw new PlatformError({
      code: 'EMAIL_MESSAGE_TOO_LARGE',
      message: `The message has ${parsed.attachments.length} attachments; inbound email takes at most ${maxAttachments}.`,
      details: { attachments: parsed.attachments.length, max: maxAttachments },
    });
  }
  for (const [index, attachment] of parsed.attachments.entries()) {
    if (attachment.filename !== undefined && CONTROL.test(attachment.filename)) {
      throw invalid(
        `Attachment ${index + 1} has a name with a control character (such as NUL); name it in printable characters.`,
        { attachment: String(index + 1) },
      );
    }
  }
  const cc = addressesOf(parsed.cc);
  const references = parsed.references;
  return {
    from,
    fromName: fromEntry?.name ? fromEntry.name : null,
    cc,
    headerRecipients: [...addressesOf(parsed.to), ...cc],
    replyTo: addressesOf(parsed.replyTo)[0] ?? null,
    subject: parsed.subject ?? '',
    text: parsed.text ?? null,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    messageId: parsed.messageId ?? null,
    inReplyTo: parsed.inReplyTo ?? null,
    references:
      references === undefined ? [] : Array.isArray(references) ? references : [references],
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.toISOString() : null,
    attachments: parsed.attachments.map((attachment, index) => ({
      name: attachment.filename || `attachment-${index + 1}`,
      contentType: attachment.contentType || 'application/octet-stream',
      data: new Uint8Array(
        attachment.content.buffer,
        attachment.content.byteOffset,
        attachment.content.byteLength,
      ),
    })),
  };
}
