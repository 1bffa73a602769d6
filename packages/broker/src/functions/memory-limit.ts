import { readFileSync } from 'node:fs';

/** The memory limit of a Function when neither its declaration nor the environment sets one. */
export const DEFAULT_MEMORY_MB = 512;

/** How often a Function process's resident memory is checked. */
const CHECK_EVERY_MS = 250;

const PAGE_BYTES = 4096;

/**
 * The memory limit of a Function in megabytes: `declared` when given, else the
 * `PLATFORM_FUNCTION_MEMORY_MB` environment variable of the broker, else 512.
 */
export function memoryLimitMb(declared?: number): number {
  if (declared !== undefined) return declared;
  const fromEnv = Number(process.env.PLATFORM_FUNCTION_MEMORY_MB);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_MEMORY_MB;
}

/** True when `text` is what V8 prints when a heap limit is reached. */
export function isOutOfMemoryLine(text: string): boolean {
  return text.includes('Fatal JavaScript out of memory') || text.includes('heap out of memory');
}

/**
 * Checks the resident memory of process `pid` every 250 ms and calls `onExceeded` once when it
 * passes `limitMb`. The V8 heap limit alone misses bytes held outside the heap (typed arrays);
 * this catches those. Linux only (`/proc`); elsewhere only the heap limit applies. Returns the
 * function that stops watching.
 */
export function watchMemory(pid: number, limitMb: number, onExceeded: () => void): () => void {
  if (process.platform !== 'linux') return () => undefined;
  const limit = limitMb * 1024 * 1024;
  const timer = setInterval(() => {
    let resident: number;
    try {
      // `size resident shared ...` in pages.
      resident = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
    } catch {
      clearInterval(timer);
      return;
    }
    if (resident > limit) {
      clearInterval(timer);
      onExceeded();
    }
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
