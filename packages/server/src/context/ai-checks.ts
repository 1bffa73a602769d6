import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { gifFrames, imageContentTypes, sniffImageType } from '@platform/schema/contract';
import { toBase64 } from './bytes.ts';

type WireAttachment =
  | { type: 'file'; file: string; detail?: 'auto' | 'original' }
  | { type: 'image'; data: string; contentType: (typeof imageContentTypes)[number] };

function invalid(message: string, details: JsonObject = {}): PlatformError {
  return new PlatformError({ code: 'AI_INPUT_INVALID', message, details });
}

const REMOTE = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Checks AI attachments against spec 2.6 and the limits of section 8 before sending, and
 * returns them in their wire form. Managed files are checked by the broker (their type is only
 * known there); everything knowable here is checked here.
 */
export function checkAttachments(attachments: unknown): WireAttachment[] | undefined {
  if (attachments === undefined) return undefined;
  if (!Array.isArray(attachments)) throw invalid('attachments must be an array.');
  const { maxImages, imageMaxBytes, attachmentsTotalMaxBytes } = limits.ai;
  // At most four images or one PDF: more than four attachments can never be valid.
  if (attachments.length > maxImages) {
    throw invalid(`At most ${maxImages} attachments are accepted.`, { limit: maxImages });
  }
  let total = 0;
  // Check everything first, encode after: a rule broken late must not cost a base64 pass.
  const checked = attachments.map((attachment: unknown, index): WireAttachment | ImageBytes => {
    if (typeof attachment !== 'object' || attachment === null) {
      throw invalid(`attachments[${index}] must be an object.`, { index });
    }
    const a = attachment as Record<string, unknown>;
    if (a.type === 'file') {
      if (typeof a.file !== 'string' || a.file === '') {
        throw invalid(`attachments[${index}].file must be a FileRef.`, { index });
      }
      if (REMOTE.test(a.file))
        throw invalid('Remote URLs are not accepted; upload the file first.', { index });
      if (a.detail !== undefined && a.detail !== 'auto' && a.detail !== 'original') {
        throw invalid(`attachments[${index}].detail must be 'auto' or 'original'.`, { index });
      }
      return {
        type: 'file',
        file: a.file,
        ...(a.detail === undefined ? {} : { detail: a.detail }),
      };
    }
    if (a.type !== 'image') {
      throw invalid(`attachments[${index}].type must be 'file' or 'image'.`, { index });
    }
    if (typeof a.data === 'string') {
      throw invalid('Image data must be bytes; remote image URLs and strings are not accepted.', {
        index,
      });
    }
    if (!(a.data instanceof Uint8Array))
      throw invalid(`attachments[${index}].data must be a Uint8Array.`, { index });
    const contentType = a.contentType;
    if (
      typeof contentType !== 'string' ||
      !(imageContentTypes as readonly string[]).includes(contentType)
    ) {
      throw invalid(
        `Image type ${JSON.stringify(contentType)} is not accepted; use PNG, JPEG, WEBP or GIF.`,
        {
          index,
        },
      );
    }
    const type = contentType as (typeof imageContentTypes)[number];
    if (sniffImageType(a.data) !== type) {
      throw invalid(`attachments[${index}] bytes are not a ${type} image.`, { index });
    }
    if (type === 'image/gif' && gifFrames(a.data) > 1) {
      throw invalid('Animated GIFs are not accepted.', { index });
    }
    if (a.data.byteLength > imageMaxBytes) {
      throw invalid(`An image may be at most ${imageMaxBytes} bytes.`, {
        index,
        limit: imageMaxBytes,
      });
    }
    total += a.data.byteLength;
    if (total > attachmentsTotalMaxBytes) {
      throw invalid(`All attachments together may be at most ${attachmentsTotalMaxBytes} bytes.`, {
        limit: attachmentsTotalMaxBytes,
      });
    }
    return { type: 'image', bytes: a.data, contentType: type };
  });
  return checked.map((a) =>
    'bytes' in a ? { type: 'image', data: toBase64(a.bytes), contentType: a.contentType } : a,
  );
}

interface ImageBytes {
  type: 'image';
  bytes: Uint8Array;
  contentType: (typeof imageContentTypes)[number];
}
