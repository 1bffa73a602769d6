// A minimal PNG encoder for 8-bit RGB images. It writes the zlib stream with stored (not
// compressed) deflate blocks: synchronous, dependency-free and identical on every runtime,
// which CompressionStream (asynchronous, and free to vary its output) would not guarantee.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(parts: readonly Uint8Array[]): number {
  let c = 0xffffffff;
  for (const bytes of parts) {
    for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const u32 = (n: number) =>
  new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
const ascii = (s: string) => new TextEncoder().encode(s);

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const name = ascii(type);
  return concat([u32(data.byteLength), name, data, u32(crc32([name, data]))]);
}

/** zlib around stored deflate blocks of at most 65,535 bytes each. */
function zlibStored(raw: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [new Uint8Array([0x78, 0x01])];
  for (let at = 0; at < raw.byteLength || at === 0; at += 65_535) {
    const block = raw.subarray(at, at + 65_535);
    const final = at + 65_535 >= raw.byteLength ? 1 : 0;
    const len = block.byteLength;
    parts.push(
      new Uint8Array([final, len & 0xff, len >>> 8, ~len & 0xff, (~len >>> 8) & 0xff]),
      block,
    );
    if (raw.byteLength === 0) break;
  }
  parts.push(u32(adler32(raw)));
  return concat(parts);
}

/** Encodes `rgb` (width × height × 3 bytes, rows top to bottom) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Uint8Array {
  if (rgb.byteLength !== width * height * 3) throw new RangeError('rgb has the wrong size');
  const raw = new Uint8Array((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    // Filter type 0 (none) before each row.
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  }
  const header = concat([u32(width), u32(height), new Uint8Array([8, 2, 0, 0, 0])]);
  return concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlibStored(raw)),
    chunk('IEND', new Uint8Array()),
  ]);
}
