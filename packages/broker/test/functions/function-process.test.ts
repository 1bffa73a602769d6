import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FunctionProcess } from '../../src/functions/function-process.ts';

const probe = fileURLToPath(new URL('../fixtures/probe-host.js', import.meta.url));
let broker: Server;
let brokerPort: number;
const processes: FunctionProcess[] = [];

beforeAll(async () => {
  broker = createServer((_, res) => res.end('pong'));
  await new Promise<void>((r) => broker.listen(0, '127.0.0.1', r));
  brokerPort = (broker.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => broker.close(() => r())));
afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop()));
});

function start(name: string): FunctionProcess {
  const fn = new FunctionProcess({
    name,
    bundlePath: probe,
    brokerPort,
    onOutput: () => undefined,
  });
  processes.push(fn);
  return fn;
}

async function invoke(fn: FunctionProcess, input: unknown, timeoutMs = 10_000): Promise<unknown> {
  const response = await fn.request({
    method: 'POST',
    path: '/_platform/invoke',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input, broker: { url: `http://127.0.0.1:${brokerPort}` } }),
    timeoutMs,
  });
  return ((await response.json()) as { result: unknown }).result;
}

describe('FunctionProcess', () => {
  it('starts a Deno host and answers calls', async () => {
    const fn = start('echo');
    expect(await invoke(fn, { hello: 'world' })).toEqual({ hello: 'world' });
    expect(fn.lastStartMs).toBeGreaterThan(0);
  });

  it('runs with least privilege: only the broker and its own port', async () => {
    const fn = start('perm');
    // Another local server: listening, but not the broker.
    const other = createServer((_, res) => res.end('other'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
    const result = await invoke(fn, { action: 'permissions', otherUrl });
    await new Promise<void>((r) => other.close(() => r()));
    expect(result).toEqual({
      read: 'NotCapable',
      write: 'NotCapable',
      env: 'NotCapable',
      run: 'NotCapable',
      outside: 'NotCapable',
      otherPort: 'NotCapable',
      broker: 'allowed',
    });
  });

  it('reports a crash, restarts, and leaves other Functions alone', async () => {
    const a = start('a');
    const b = start('b');
    const pidB = await invoke(b, { action: 'pid' });
    const pidA = await invoke(a, { action: 'pid' });
    await expect(invoke(a, { action: 'crash' })).rejects.toMatchObject({
      code: 'FUNCTION_FAILED',
      status: 500,
    });
    expect(await invoke(a, { action: 'pid' })).not.toBe(pidA);
    expect(a.restarts).toBe(1);
    expect(await invoke(b, { action: 'pid' })).toBe(pidB);
  });

  it('times out a hung handler, kills it and starts over', async () => {
    const fn = start('hang');
    const pid = await invoke(fn, { action: 'pid' });
    await expect(invoke(fn, { action: 'hang' }, 300)).rejects.toMatchObject({
      code: 'FUNCTION_TIMEOUT',
      status: 504,
    });
    expect(await invoke(fn, { action: 'pid' })).not.toBe(pid);
  });

  it('serves concurrent calls from one process', async () => {
    const fn = start('many');
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => invoke(fn, { action: 'sleep', ms: 200 })),
    );
    expect(results).toEqual(Array(8).fill('slept'));
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('fails to start with FUNCTION_UNAVAILABLE and the error output', async () => {
    const fn = new FunctionProcess({
      name: 'broken',
      bundlePath: '/nonexistent/bundle.js',
      brokerPort,
    });
    processes.push(fn);
    await expect(fn.ready()).rejects.toMatchObject({ code: 'FUNCTION_UNAVAILABLE', status: 503 });
  });
});
