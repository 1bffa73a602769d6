import type { ECDH } from 'node:crypto';
import { createRequire } from 'node:module';

/** Parameters of an aes128gcm decryption for Web Push (RFC 8291). */
export interface DecryptParams {
  readonly version: 'aes128gcm';
  /** The receiving device's key pair. */
  readonly privateKey: ECDH;
  /** The device's 16-byte authentication secret. */
  readonly authSecret: Buffer;
}

/**
 * `http_ece` (RFC 8188), the encoder `web-push` encrypts with, used here to decrypt as a device
 * does. It ships no types; this is the one call the broker makes, typed.
 */
export const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(buffer: Buffer, params: DecryptParams): Buffer;
};
