// `http_ece` ships no types; these are the two calls the broker makes (RFC 8188).
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  /** Parameters of an aes128gcm decryption for Web Push (RFC 8291). */
  interface DecryptParams {
    readonly version: 'aes128gcm';
    /** The receiving device's key pair. */
    readonly privateKey: ECDH;
    /** The device's 16-byte authentication secret. */
    readonly authSecret: Buffer;
  }

  const ece: {
    decrypt(buffer: Buffer, params: DecryptParams): Buffer;
  };
  export default ece;
}
