import { encodePng } from './png.ts';
import { hash32, random } from './seed.ts';

/** Side of the offline image in pixels. */
export const OFFLINE_IMAGE_SIZE = 64;

/**
 * The offline answer to `generateImage`: a 64×64 PNG whose colours and shapes are derived from
 * the prompt — a diagonal gradient between two colours with three rectangles over it.
 */
export function offlineImage(prompt: string): Uint8Array {
  const next = random(hash32(prompt));
  const colour = () => [0, 0, 0].map(() => Math.floor(next() * 256));
  const [from, to] = [colour(), colour()];
  const size = OFFLINE_IMAGE_SIZE;
  const boxes = Array.from({ length: 3 }, () => {
    const x = Math.floor(next() * size * 0.75);
    const y = Math.floor(next() * size * 0.75);
    return { x, y, w: 8 + Math.floor(next() * 16), h: 8 + Math.floor(next() * 16), c: colour() };
  });
  const rgb = new Uint8Array(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const t = (x + y) / (2 * size - 2);
      const box = boxes.find((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h);
      for (let i = 0; i < 3; i++) {
        const base = (from[i] ?? 0) * (1 - t) + (to[i] ?? 0) * t;
        rgb[(y * size + x) * 3 + i] = box ? (box.c[i] ?? 0) : Math.round(base);
      }
    }
  }
  return encodePng(size, size, rgb);
}
