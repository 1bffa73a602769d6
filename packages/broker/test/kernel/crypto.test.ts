import { describe, expect, it } from 'vitest';
import { safeEqual } from '../../src/kernel/crypto.ts';

describe('safeEqual', () => {
  it('compares strings', () => {
    expect(safeEqual('plat_app_abc', 'plat_app_abc')).toBe(true);
    expect(safeEqual('plat_app_abc', 'plat_app_abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
  });

  it('compares bytes, of equal or different lengths', () => {
    const key = Buffer.from('derived key bytes');
    expect(safeEqual(key, Buffer.from('derived key bytes'))).toBe(true);
    expect(safeEqual(key, Buffer.from('derived key byteS'))).toBe(false);
    expect(safeEqual(key, key.subarray(0, 8))).toBe(false);
    expect(safeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
  });
});
