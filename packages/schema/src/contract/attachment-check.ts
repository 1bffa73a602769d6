import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '../limits.ts';
import { imageContentTypes } from './ai.ts';
import { gifFrames, isPdf, pdfPageCount, sniffImageType } from './attachment-bytes.ts';

/** An attachment as the runtime contract carries it. */
export type WireAttachment =
  | { type: 'file'; file: string; detail?: 'auto' | 'original' | undefined }
  | { type: 'image'; data: string; contentType: (typeof imageContentTypes)[number] };

/** An attachment checked and ready for a provider: its bytes and the type they really are. */
export interface CheckedAttachment {
  readonly kind: 'image' | 'pdf';
  readonly data: Uint8Array;
  readonly mediaType: string;
}

/** How {@link checkWireAttachments} reaches bytes: managed files and base64 image data. */
export interface AttachmentReader {
  /** Reads a managed file as the calling identity (its access rules apply). */
  readonly readFile: (ref: string) => Promise<{ data: Uint8Array; contentType: string }>;
  /** Decodes base64 image data (the host's fastest decoder). */
  readonly decodeBase64: (data: string) => Uint8Array;
}

const invalid = (message: string, details: JsonObject = {}) =>
  new PlatformError({ code: 'AI_INPUT_INVALID', message, details });

const REMOTE = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Checks AI attachments as they arrive over the runtime contract, against spec 2.6 and the limits
 * of section 8, before any provider call: what they are is read from their bytes (a PNG declared
 * as JPEG is refused), animated GIFs and remote URLs are refused, at most four images of 15 MiB
 * each or one PDF (a managed file, the only attachment) of at most 20 pages and 20 MiB, all
 * together at most 20 MiB. The broker and the test kit's in-memory broker both run it, so a call
 * is refused alike under either. Throws `AI_INPUT_INVALID` (with `details.index`) or the file
 * error of a managed file the caller may not read.
 *
 * @example
 * ```ts
 * const checked = await checkWireAttachments(body.attachments, { readFile, decodeBase64 });
 * ```
 */
export async function checkWireAttachments(
  attachments: readonly WireAttachment[] | undefined,
  io: AttachmentReader,
): Promise<CheckedAttachment[]> {
  if (!attachments || attachments.length === 0) return [];
  const { maxImages, imageMaxBytes, pdfMaxBytes, pdfMaxPages, attachmentsTotalMaxBytes } =
    limits.ai;
  // More than four attachments can never be valid: refuse before reading any file.
  if (attachments.length > maxImages) {
    throw invalid(`At most ${maxImages} images (or one PDF) may be attached.`, {
      limit: maxImages,
    });
  }
  const checked: CheckedAttachment[] = [];
  let total = 0;
  for (const [index, attachment] of attachments.entries()) {
    let data: Uint8Array;
    let declared: string;
    if (attachment.type === 'file') {
      if (REMOTE.test(attachment.file)) {
        throw invalid('Remote URLs are not accepted; upload the file first.', { index });
      }
      const file = await io.readFile(attachment.file);
      data = file.data;
      declared = file.contentType;
    } else {
      data = io.decodeBase64(attachment.data);
      declared = attachment.contentType;
    }
    const image = sniffImageType(data);
    const pdf = image === undefined && isPdf(data);
    if (!image && !pdf) {
      throw invalid(`attachments[${index}] is neither a PNG, JPEG, WEBP or GIF image nor a PDF.`, {
        index,
      });
    }
    const actual = image ?? 'application/pdf';
    const declaresKnownType =
      (imageContentTypes as readonly string[]).includes(declared) || declared === 'application/pdf';
    if (declaresKnownType && declared !== actual) {
      throw invalid(
        `attachments[${index}] is declared as ${declared} but its bytes are ${actual}.`,
        {
          index,
        },
      );
    }
    if (image === 'image/gif' && gifFrames(data) > 1) {
      throw invalid('Animated GIFs are not accepted.', { index });
    }
    if (image && data.byteLength > imageMaxBytes) {
      throw invalid(`An image may be at most ${imageMaxBytes} bytes.`, {
        index,
        limit: imageMaxBytes,
      });
    }
    if (pdf) {
      if (attachment.type !== 'file') {
        throw invalid('A PDF must be attached as a managed file.', { index });
      }
      if (attachments.length > 1) {
        throw invalid('A PDF must be the only attachment.', { index });
      }
      if (data.byteLength > pdfMaxBytes) {
        throw invalid(`A PDF may be at most ${pdfMaxBytes} bytes.`, { index, limit: pdfMaxBytes });
      }
      const pages = pdfPageCount(data);
      if (pages > pdfMaxPages) {
        throw invalid(`A PDF may have at most ${pdfMaxPages} pages; this one has ${pages}.`, {
          index,
          limit: pdfMaxPages,
        });
      }
    }
    total += data.byteLength;
    if (total > attachmentsTotalMaxBytes) {
      throw invalid(`All attachments together may be at most ${attachmentsTotalMaxBytes} bytes.`, {
        limit: attachmentsTotalMaxBytes,
      });
    }
    checked.push({ kind: pdf ? 'pdf' : 'image', data, mediaType: actual });
  }
  return checked;
}
