import type { imageContentTypes } from './ai.ts';

/** An image type an AI attachment may have. */
export type ImageContentType = (typeof imageContentTypes)[number];

function startsWith(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  return prefix.every((byte, i) => bytes[offset + i] === byte);
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * The image type of `bytes` by their magic number (PNG, JPEG, WEBP, GIF), or `undefined`.
 * Attachments are judged by their bytes, never by the type they declare: the server SDK checks
 * this before sending and the broker again, since it does not trust the client.
 */
export function sniffImageType(bytes: Uint8Array): ImageContentType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  return undefined;
}

/** True when `bytes` start like a PDF file. */
export const isPdf = (bytes: Uint8Array): boolean => startsWith(bytes, ascii('%PDF-'));

/**
 * The page count of a PDF: the larger of its `/Type /Page` objects and the largest `/Count` of
 * its page trees. Page objects inside compressed object streams are invisible to this scan; the
 * page tree's `/Count` usually is not, so the maximum of both is taken.
 */
export function pdfPageCount(bytes: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(bytes);
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
  let count = 0;
  for (const match of text.matchAll(
    /\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g,
  )) {
    count = Math.max(count, Number(match[1] ?? match[2]));
  }
  return Math.max(pages, count);
}

/** Counts the image frames of a GIF by walking its blocks; a malformed GIF counts as animated. */
export function gifFrames(bytes: Uint8Array): number {
  let pos = 13;
  const flags = bytes[10] ?? 0;
  if (flags & 0x80) pos += 3 * 2 ** ((flags & 0x07) + 1);
  let frames = 0;
  const skipSubBlocks = () => {
    while (pos < bytes.length) {
      const size = bytes[pos] ?? 0;
      pos += 1 + size;
      if (size === 0) return;
    }
  };
  while (pos < bytes.length) {
    const block = bytes[pos];
    if (block === 0x3b) return frames;
    if (block === 0x21) {
      pos += 2;
      skipSubBlocks();
    } else if (block === 0x2c) {
      frames++;
      const local = bytes[pos + 9] ?? 0;
      pos += 10;
      if (local & 0x80) pos += 3 * 2 ** ((local & 0x07) + 1);
      pos += 1;
      skipSubBlocks();
    } else {
      return Number.POSITIVE_INFINITY;
    }
  }
  return frames === 0 ? Number.POSITIVE_INFINITY : frames;
}
