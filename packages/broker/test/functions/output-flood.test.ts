import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';

// A Function that prints `mb` MiB to stdout or stderr in one line, without a newline until the
// end (or never), as a hostile or broken Function may.
const files = {
  'functions/flood.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ mb: s.number(), stream: s.string(), newline: s.boolean() }),
  handler: async (ctx) => {
    const out = ctx.input.stream === 'stderr' ? Deno.stderr : Deno.stdout;
    const chunk = new Uint8Array(1024 * 1024).fill(120);
    for (let i = 0; i < ctx.input.mb; i++) {
      let written = 0;
      while (written < chunk.length) written += out.writeSync(chunk.subarray(written));
    }
    if (ctx.input.newline) out.writeSync(new TextEncoder().encode('\\nafter the flood\\n'));
    return 'flooded';
  },
});
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(files);
  await env.broker.addFunction({
    name: 'flood',
    entrypoint: 'functions/flood.ts',
    access: 'public',
  });
});
afterAll(() => env.cleanup());

const flood = (input: { mb: number; stream: string; newline: boolean }) =>
  callOverHttp(env.broker, 'flood', input);

/** The broker's resident memory (it runs in this process), in MiB. */
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

describe('a Function flooding its output', () => {
  it('cannot grow the broker by what it prints in one line, nor crash it', async () => {
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb());
    }, 20);
    try {
      const response = await flood({ mb: 400, stream: 'stdout', newline: true });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ result: 'flooded' });
      const stderr = await flood({ mb: 64, stream: 'stderr', newline: false });
      expect(stderr.status).toBe(200);
    } finally {
      clearInterval(sampler);
    }
    // Well below the line itself: a broker that kept the 400 MiB line would grow by at least
    // that (keeping a 200 MiB line, it grew by 550 MiB). What it grows by is garbage of the
    // pipe's reads not yet collected, which depends on when the collector runs on a busy machine
    // and not on the line's length (0-185 MiB seen, for lines of 200 and of 400 MiB).
    expect(peak - before).toBeLessThan(300);
    // The long line is cut, and the next line is printed as a line of its own.
    const printed = env.lines.filter((line) => line.includes('[flood]'));
    expect(Math.max(...printed.map((line) => line.length))).toBeLessThan(80 * 1024);
    expect(printed.some((line) => line.endsWith('[flood] after the flood'))).toBe(true);
    expect(printed.some((line) => /cut at 65536 bytes/.test(line))).toBe(true);
    // And the broker still serves.
    const again = await flood({ mb: 0, stream: 'stdout', newline: false });
    expect(await again.json()).toEqual({ result: 'flooded' });
  }, 120_000);
});
