// Hostile requests and faults at the edge of `platform dev` of a PUBLIC app, over real HTTP on
// loopback: reserved paths, clients that hang up.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { codeOf, devFor } from './helpers.ts';

const files: Record<string, string> = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: slow
    entrypoint: functions/slow/index.ts
    access: public
`,
  'functions/slow/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ ms: s.number() }),
  handler: async ({ input }) => {
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    return { slept: input.ms };
  },
});
`,
  'public/index.html': '<!doctype html><h1 id="app">the app</h1>',
  'public/app.js': 'console.log("app");',
};

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
const printed: string[] = [];

beforeAll(async () => {
  app = await tempDir('public-edge-');
  await writeFiles(app.path, files);
  ({ dev } = await devFor(app.path, { watch: false, logWriter: (line) => printed.push(line) }));
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('reserved paths of a public app', { timeout: 60_000 }, () => {
  it('answers ROUTE_NOT_FOUND to unknown /_platform, /v1 and /rest paths, not the app page', async () => {
    const navigate = { accept: 'text/html', 'sec-fetch-mode': 'navigate' };
    for (const path of [
      '/_platform/nothing',
      '/_platform/auth/nothing',
      '/_platform/runtime/nothing',
      '/_platform/api/functions',
      '/v1',
      '/v1/nothing/at/all',
      '/rest/v1/todos/extra',
      // However the path is spelled: repeated slashes, another case.
      '//_platform/nothing',
      '//_platform/api/functions',
      '/_PLATFORM/nothing',
      '/V1/nothing',
      '//v1',
      '/Rest/nothing',
    ]) {
      const response = await fetch(`${dev.url}${path}`, { headers: navigate });
      expect(response.status, path).toBe(404);
      expect(await codeOf(response), path).toBe('ROUTE_NOT_FOUND');
    }
    // The app's own pages still serve, client-side routes included.
    expect(await (await fetch(`${dev.url}/some/route`, { headers: navigate })).text()).toContain(
      'the app',
    );
  });
});

describe('a client that hangs up', { timeout: 60_000 }, () => {
  it('is not reported as a broker error', async () => {
    const before = printed.length;
    const abort = new AbortController();
    const call = fetch(`${dev.url}/_platform/api/functions/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 1500 }),
      signal: abort.signal,
    });
    await sleep(300);
    abort.abort();
    await expect(call).rejects.toThrow();
    await sleep(2500);
    const after = printed.slice(before);
    expect(after.filter((line) => /broker error|\n\s+at /.test(line))).toEqual([]);
    // The broker still answers.
    const again = await fetch(`${dev.url}/_platform/api/functions/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 1 }),
    });
    expect(await again.json()).toEqual({ result: { slept: 1 } });
  });

  it('in the middle of sending a body is not reported as a broker error', async () => {
    const before = printed.length;
    const { port } = new URL(dev.url);
    for (const path of ['/_platform/api/functions/slow', '/_platform/auth/password']) {
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const type = path.includes('auth') ? 'application/x-www-form-urlencoded' : 'application/json';
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: localhost:${port}\r\ncontent-type: ${type}\r\ncontent-length: 100000\r\n\r\n{"ms":`,
      );
      await sleep(300);
      socket.destroy();
    }
    await sleep(1000);
    const after = printed.slice(before);
    expect(after.filter((line) => /broker error|\n\s+at /.test(line))).toEqual([]);
  });
});
