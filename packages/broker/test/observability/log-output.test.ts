// The service's log on standard output never stops the service: a reader that falls behind (a
// log shipper that hangs, a parent that never reads the pipe) once blocked the event loop on the
// 64 KiB pipe, and every request, healthz included, waited for the reader.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { node, root } from '../serve/serve-harness.ts';

const fixture = join(root, 'packages/broker/test/fixtures/log-burst.ts');

/**
 * What a process wrote that logged `burst` lines to an unread pipe (through the service's
 * default destination, or one buffering up to `maxBytes`), once the pipe is read again.
 */
async function burstUnread(burst: number, maxBytes?: number) {
  const child = spawn(process.execPath, node([fixture]), {
    env: {
      ...process.env,
      LOG_BURST: String(burst),
      ...(maxBytes === undefined ? {} : { LOG_MAX_BYTES: String(maxBytes) }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Standard output stays unread until the child says its event loop turns.
  child.stdout.pause();
  const alive = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 15_000);
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line === 'alive') {
        clearTimeout(timer);
        resolve(true);
      }
    });
  });
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout }).on('line', (line) =>
    lines.push(JSON.parse(line) as Record<string, unknown>),
  );
  if (!alive) child.kill('SIGKILL');
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { alive, code, lines };
}

describe('the service log on standard output', () => {
  it('keeps the event loop turning while nobody reads, and loses no line that fits', async () => {
    // About 500 KB of lines: several times what the pipe holds.
    const { alive, code, lines } = await burstUnread(2000);
    expect(alive).toBe(true);
    expect(code).toBe(0);
    const burst = lines.filter((line) => line.msg === 'burst').map((line) => line.i);
    expect(burst).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(lines.filter((line) => line.msg === 'tick')).toHaveLength(10);
    expect(lines.some((line) => typeof line.dropped === 'number')).toBe(false);
  }, 30_000);

  it('drops what does not fit in memory and says how many lines it dropped', async () => {
    const { alive, code, lines } = await burstUnread(2000, 100_000);
    expect(alive).toBe(true);
    expect(code).toBe(0);
    const burst = lines.filter((line) => line.msg === 'burst');
    const notice = lines.find((line) => typeof line.dropped === 'number');
    expect(notice?.level).toBe('warn');
    expect(burst.length).toBeGreaterThan(0);
    expect(burst.length).toBeLessThan(2000);
    // Every line is either written or counted.
    expect(burst.length + (notice?.dropped as number)).toBe(2000);
    // The lines kept are the first ones, in order, and the ticks after the reader caught up all arrive.
    expect(burst.map((line) => line.i)).toEqual(Array.from({ length: burst.length }, (_, i) => i));
    expect(lines.filter((line) => line.msg === 'tick')).toHaveLength(10);
  }, 30_000);
});
