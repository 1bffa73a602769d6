// Base64 for bytes on the wire. Uses the native Uint8Array base64 methods where the runtime
// has them and falls back to btoa/atob, which every Web runtime has.

interface Base64Native {
  fromBase64?: (text: string) => Uint8Array;
}

const native = Uint8Array as unknown as Base64Native;

/** Encodes bytes as standard base64. */
export function toBase64(bytes: Uint8Array): string {
  const withMethod = bytes as Uint8Array & { toBase64?: () => string };
  if (typeof withMethod.toBase64 === 'function') return withMethod.toBase64();
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** Decodes standard base64 into bytes. */
export function fromBase64(text: string): Uint8Array {
  if (typeof native.fromBase64 === 'function') return native.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Bytes of a `data` argument: a string is UTF-8 encoded. Anything else is a TypeError. */
export function toBytes(data: unknown, what: string): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (typeof data === 'string') return new TextEncoder().encode(data);
  throw new TypeError(`${what} must be a Uint8Array, an ArrayBuffer or a string`);
}
