import {
  type CheckedAttachment,
  checkWireAttachments,
  type WireAttachment,
} from '@platform/schema/contract';

export type { CheckedAttachment, WireAttachment };

/** Reads a managed file as the calling identity (RLS and delegated job grants apply). */
export type ReadFile = (ref: string) => Promise<{ data: Uint8Array; contentType: string }>;

// Node's own decoder: image data may be up to 15 MiB of base64.
const decodeBase64 = (data: string): Uint8Array => Buffer.from(data, 'base64');

/**
 * Checks AI attachments before any provider call with the one check of
 * `@platform/schema/contract` (`checkWireAttachments`), which the test kit's in-memory broker runs
 * too. The server SDK checks what it can before sending; the broker does not trust it. Throws
 * `AI_INPUT_INVALID` (with `details.index`) or the file error of a managed file the caller may
 * not read.
 *
 * @example
 * ```ts
 * const checked = await checkAttachments(call.attachments, (ref) => files.read(caller, ref));
 * ```
 */
export function checkAttachments(
  attachments: readonly WireAttachment[] | undefined,
  readFile: ReadFile,
): Promise<CheckedAttachment[]> {
  return checkWireAttachments(attachments, { readFile, decodeBase64 });
}
