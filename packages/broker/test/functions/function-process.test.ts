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

function start(name: string, allowNet?: string[], idleStopMs?: number): FunctionProcess {
  const fn = new FunctionProcess({
    name,
    bundlePath: probe,
    brokerPort,
    allowNet,
    idleStopMs,
    onOutput: () => undefined,
  });
  processes.push(fn);
  return fn;
}

function call(
  fn: FunctionProcess,
  input: unknown,
  signal?: AbortSignal,
  timeoutMs = 10_000,
): Promise<Response> {
  return fn.request({
    method: 'POST',
    path: '/_platform/invoke',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input, broker: { url: `http://127.0.0.1:${brokerPort}` } }),
    timeoutMs,
    ...(signal ? { signal } : {}),
  });
}

async function invoke(fn: FunctionProcess, input: unknown, timeoutMs = 10_000): Promise<unknown> {
  const response = await call(fn, input, undefined, timeoutMs);
  return ((await response.json()) as { result: unknown }).result;
}

/** True while process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('FunctionProcess', () => {
  it('starts a Deno host and answers calls', async () => {
    const fn = start('echo');
    expect(await invoke(fn, { hello: 'world' })).toEqual({ hello: 'world' });
    expect(fn.lastStartMs).toBeGreaterThan(0);
  });

  it('warms a running host with a health request, and starts none', async () => {
    const fn = start('warm');
    expect(await fn.warm()).toBe(false);
    expect(fn.starts).toBe(0);
    await fn.ready();
    expect(await fn.warm()).toBe(true);
    expect(fn.starts).toBe(1);
    expect(await invoke(fn, { echo: 'after warming' })).toEqual({ echo: 'after warming' });
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

  it('reaches a host the developer allowed, and still nothing else', async () => {
    const other = createServer((_, res) => res.end('other'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(other.address() as AddressInfo).port}`;
    const fn = start('perm', [host]);
    const result = await invoke(fn, { action: 'permissions', otherUrl: `http://${host}/` });
    await new Promise<void>((r) => other.close(() => r()));
    expect(result).toMatchObject({
      outside: 'NotCapable',
      otherPort: 'allowed',
      read: 'NotCapable',
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
    // Each call waits inside the handler until all eight are in: served one at a time, the
    // first would hit its time limit instead.
    const results = await Promise.all(
      Array.from({ length: 8 }, () => invoke(fn, { action: 'gather', count: 8 }, 5000)),
    );
    expect(results).toEqual(Array(8).fill('together'));
  });

  it('passes a streamed answer through whole', async () => {
    const fn = start('stream');
    const response = await call(fn, { action: 'stream', chunks: 64, size: 16 * 1024 });
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(64 * 16 * 1024);
  });

  it('holds a stream back while nobody reads it, and ends it on cancel', async () => {
    const fn = start('slow-reader');
    // 1 GiB on offer; nothing reads it for a while.
    const response = await call(fn, { action: 'stream', chunks: 65_536, size: 16 * 1024 });
    const reader = response.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 300));
    const held = (await invoke(fn, { action: 'stream-state' })) as { produced: number };
    // What socket buffers and the one queued chunk hold, not the whole gigabyte.
    expect(held.produced).toBeLessThan(2_000);
    await reader.cancel();
    await expect
      .poll(async () => invoke(fn, { action: 'stream-state' }), { timeout: 5000 })
      .toMatchObject({ cancelled: true });
  });

  it('gives up on a call whose caller went away, and keeps the process', async () => {
    const fn = start('abort');
    const pid = await invoke(fn, { action: 'pid' });
    const controller = new AbortController();
    const pending = call(fn, { action: 'sleep', ms: 5000 }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    const aborted = new AbortController();
    aborted.abort();
    await expect(call(fn, { action: 'pid' }, aborted.signal)).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(await invoke(fn, { action: 'pid' })).toBe(pid);
  });

  it('stops when idle and starts again on the next call, which is answered', async () => {
    const fn = start('idle', undefined, 300);
    const first = await invoke(fn, { action: 'pid' });
    expect(fn.pid).toBe(first);
    await expect.poll(() => alive(first as number), { timeout: 5000 }).toBe(false);
    expect(fn.pid).toBeUndefined();
    const second = await invoke(fn, { action: 'pid' });
    expect(second).not.toBe(first);
    expect(await invoke(fn, { action: 'echo-back' })).toEqual({ action: 'echo-back' });
    // Stopping for idleness is neither a crash nor a restart.
    expect(fn.restarts).toBe(0);
  });

  it('does not stop for idleness while a call is in flight', async () => {
    const fn = start('busy', undefined, 100);
    const pid = await invoke(fn, { action: 'pid' });
    // The call outlives the idle time several times over, and the process with it.
    expect(await invoke(fn, { action: 'sleep', ms: 800 })).toBe('slept');
    expect(fn.pid).toBe(pid);
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
