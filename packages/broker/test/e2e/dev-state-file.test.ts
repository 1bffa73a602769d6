// The CLI finds the running `platform dev` through `.platform/dev.json`. A file it cannot read
// is reported as such (not as "no platform dev is running"), and the dev token goes only to a
// URL on this machine's loopback: a file naming another host gets nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { fixtureApp } from './fixture-app.ts';
import { platform } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let server: Server;
const seen: (string | undefined)[] = [];

/** An address of this machine that is not loopback (any-address when it has none). */
function outsideAddress(): string {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (!entry.internal && entry.family === 'IPv4') return entry.address;
    }
  }
  return '0.0.0.0';
}

beforeAll(async () => {
  app = await tempDir('dev-state-');
  await writeFiles(app.path, fixtureApp);
  server = createServer((request, response) => {
    seen.push(request.headers.authorization);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":null}');
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await app?.remove();
});

describe('.platform/dev.json as the CLI reads it', () => {
  it('says the file is unreadable instead of saying no platform dev runs', async () => {
    await writeFiles(app.path, { '.platform/dev.json': '{"url": "http://localhost:4310", "pi' });
    const result = await platform(['invoke', 'echo', '--app', app.path]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('No platform dev is running');
    expect(result.stderr).toContain('.platform/dev.json is unreadable');
  });

  it('sends the dev token only to a loopback URL', async () => {
    const { port } = server.address() as AddressInfo;
    const url = `http://${outsideAddress()}:${port}`;
    const state = { url, appId: 'app', pid: process.pid, token: 'the-dev-token-of-this-app' };
    await writeFiles(app.path, { '.platform/dev.json': JSON.stringify(state) });
    const result = await platform(['invoke', 'echo', '--app', app.path]);
    expect(seen.filter((header) => header?.includes(state.token))).toEqual([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${url}, which is not on this machine's loopback`);
  });
});
