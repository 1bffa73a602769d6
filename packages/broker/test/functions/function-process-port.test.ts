import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it, vi } from 'vitest';
import { freePort } from '../../src/functions/free-port.ts';
import { FunctionProcess } from '../../src/functions/function-process.ts';

vi.mock('../../src/functions/free-port.ts', async (original) => ({
  freePort: vi.fn((await original<typeof import('../../src/functions/free-port.ts')>()).freePort),
}));

const probe = fileURLToPath(new URL('../fixtures/probe-host.js', import.meta.url));
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

it('starts on another port when the chosen one is taken before the host binds it', async () => {
  // Another program takes the port between the broker's choice and the host's bind.
  const squatter = createServer((_, res) => res.end('squatter'));
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => squatter.close(() => r())));
  const taken = (squatter.address() as AddressInfo).port;
  vi.mocked(freePort).mockResolvedValueOnce(taken).mockResolvedValueOnce(taken);

  const fn = new FunctionProcess({ name: 'echo', bundlePath: probe, brokerPort: taken });
  cleanup.push(() => fn.stop());
  const response = await fn.request({
    method: 'POST',
    path: '/_platform/invoke',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: { hello: 'port' }, broker: { url: 'http://127.0.0.1:1' } }),
    timeoutMs: 10_000,
  });
  expect(await response.json()).toEqual({ result: { hello: 'port' } });
  expect(fn.restarts).toBe(0);
  expect(freePort).toHaveBeenCalledTimes(3);
});
