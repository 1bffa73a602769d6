// Hostile requests at the edge of `platform dev` of a PRIVATE app (examples/private-notes, real
// sign-in), over real HTTP on loopback: nothing of the app is served to a stranger through a
// reserved path or an encoded separator; sign-in never redirects to another site; a huge form
// is refused before it is buffered; only the broker's own host names are answered.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { FakeBrowser, latestLinkToken, overHttp, type Transport } from '../auth/helpers.ts';
import { codeOf, privateNotesDev } from './helpers.ts';

const PAT = 'pat@example.com';
const PASSWORD = 'a long password';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
const printed: string[] = [];

beforeAll(async () => {
  ({ app, dev } = await privateNotesDev(PAT, PASSWORD, printed));
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const browser = () => new FakeBrowser(dev.broker, dev.url, overHttp);

describe('reserved paths of a private app', { timeout: 60_000 }, () => {
  it('answers ROUTE_NOT_FOUND to unknown sign-in and runtime paths, never the app page', async () => {
    const stranger = browser();
    for (const path of [
      '/_platform/auth/anything',
      '/_platform/auth/anything/deeper.html',
      '/_platform/runtime/anything',
    ]) {
      for (const response of [await stranger.navigate(path), await stranger.request(path)]) {
        expect(response.status, path).toBe(404);
        expect(await codeOf(response), path).toBe('ROUTE_NOT_FOUND');
      }
    }
  });

  it('never follows an encoded separator out of a reserved prefix into the app', async () => {
    const stranger = browser();
    for (const path of [
      '/_platform/auth/..%2F..%2Fapp.js',
      '/_platform/auth/..%2f..%2findex.html',
      '/_platform/runtime/..%2F..%2Fapp.js',
      '/_platform/auth/..%5C..%5Capp.js',
      '/_platform/auth/%2e%2e%2F%2e%2e%2Fapp.js',
    ]) {
      const response = await stranger.request(path);
      expect(response.status, path).toBe(404);
      expect(await codeOf(response), path).toBe('ROUTE_NOT_FOUND');
    }
  });

  it('answers ROUTE_NOT_FOUND to a granted account for unknown /_platform and /v1 paths', async () => {
    const pat = browser();
    expect((await pat.signInByPassword(PAT, PASSWORD)).status).toBe(303);
    expect((await pat.navigate('/')).status).toBe(200);
    for (const path of [
      '/_platform/nothing',
      '/_platform/api/nothing',
      '/v1/nothing',
      '/v1',
      '//_platform/nothing',
      '/V1/nothing',
      '/REST/v1/nothing/deeper',
    ]) {
      // Absolute, so that `//_platform` stays a path and does not name a host.
      const response = await pat.navigate(`${dev.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await codeOf(response), path).toBe('ROUTE_NOT_FOUND');
    }
    // Its own pages still serve, and an encoded separator is never a path step.
    expect((await pat.request('/app.js')).status).toBe(200);
    const encoded = await pat.request('/x%2F..%2Fapp.js');
    expect(encoded.status).toBe(404);
    expect(await codeOf(encoded)).toBe('ROUTE_NOT_FOUND');
  });
});

describe('the control plane of a private app', { timeout: 60_000 }, () => {
  it('refuses a granted account however the path is spelled', async () => {
    const pat = browser();
    expect((await pat.signInByPassword(PAT, PASSWORD)).status).toBe(303);
    for (const path of [
      '//v1/apps/x/tokens',
      '/V1/apps/x/jobs',
      '//v1/organisation',
      '/V1/Platform-Administrators',
    ]) {
      const response = await pat.request(`${dev.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status, path).toBe(403);
      expect(await codeOf(response), path).toBe('PERMISSION_DENIED');
    }
  });
});

describe('no open redirect after sign-in', { timeout: 60_000 }, () => {
  const hostile = () => [
    '/.//evil.example',
    '/%2e//evil.example',
    '/%2E//evil.example/path?q=1',
    '/a/..//evil.example',
    '/./\\evil.example',
    `${dev.url}//evil.example`,
    `${dev.url}/.//evil.example`,
  ];
  // Where a browser goes with this Location: it must stay on the app's origin.
  const landsOn = (location: string | null) => new URL(location ?? '', dev.url).origin;

  it('on password sign-in', async () => {
    for (const returnTo of hostile()) {
      const pat = browser();
      const response = await pat.signInByPassword(PAT, PASSWORD, returnTo);
      expect(response.status, returnTo).toBe(303);
      const location = response.headers.get('location');
      expect(location, returnTo).toMatch(/^\/(?![/\\])/);
      expect(landsOn(location), returnTo).toBe(dev.url);
    }
  });

  it('on the email-link claim', async () => {
    for (const returnTo of hostile().slice(0, 4)) {
      const pat = browser();
      await pat.requestLink(PAT, returnTo);
      await pat.confirmLink(await latestLinkToken(dev.broker, PAT));
      const claim = await pat.request('/_platform/auth/claim', { method: 'POST' });
      expect(claim.status, returnTo).toBe(303);
      const location = claim.headers.get('location');
      expect(location, returnTo).toMatch(/^\/(?![/\\])/);
      expect(landsOn(location), returnTo).toBe(dev.url);
    }
  });

  it("through the private app's own redirect to sign-in and back", async () => {
    for (const path of ['//evil.example', '/.//evil.example', '//evil.example/x?y=1']) {
      const pat = browser();
      const away = await pat.navigate(`${dev.url}${path}`);
      expect(away.status, `${path} ${await away.clone().text()}`).toBe(302);
      const returnTo = new URL(away.headers.get('location') ?? '', dev.url).searchParams.get(
        'returnTo',
      );
      const response = await pat.signInByPassword(PAT, PASSWORD, returnTo ?? '');
      const location = response.headers.get('location');
      expect(location, path).toMatch(/^\/(?![/\\])/);
      expect(landsOn(location), path).toBe(dev.url);
    }
  });
});

/**
 * Sends a request head and `sent` bytes of a body that is far from complete, and resolves with
 * the status line the broker answers while the rest never comes (or `timeout`).
 */
async function answerBeforeBodyEnds(
  path: string,
  framing: 'content-length' | 'chunked',
  sent: number,
): Promise<string> {
  const { port } = new URL(dev.url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  try {
    const answered = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
      });
      socket.on('close', () => resolve(text || 'closed without an answer'));
      socket.on('error', () => undefined);
      setTimeout(() => resolve('timeout'), 3000);
    });
    const framingHeader =
      framing === 'chunked' ? 'transfer-encoding: chunked' : 'content-length: 450000000';
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: localhost:${port}\r\n` +
        `content-type: application/x-www-form-urlencoded\r\n${framingHeader}\r\n\r\n`,
    );
    const piece = Buffer.alloc(8192, 'a');
    for (let at = 0; at < sent; at += piece.length) {
      socket.write(framing === 'chunked' ? `2000\r\n${piece.toString()}\r\n` : piece);
    }
    return await answered;
  } finally {
    socket.destroy();
  }
}

describe('sign-in forms and huge bodies', { timeout: 60_000 }, () => {
  it('refuse a declared content-length over 16 KiB without reading the body', async () => {
    for (const path of ['/_platform/auth/password', '/_platform/auth/email-link']) {
      expect(await answerBeforeBodyEnds(path, 'content-length', 0), path).toBe(
        'HTTP/1.1 413 Payload Too Large',
      );
    }
  });

  it('stop reading a chunked body at 16 KiB', async () => {
    for (const path of ['/_platform/auth/password', '/_platform/auth/sign-out']) {
      expect(await answerBeforeBodyEnds(path, 'chunked', 64 * 1024), path).toBe(
        'HTTP/1.1 413 Payload Too Large',
      );
    }
  });

  it('still read a small form whole', async () => {
    const pat = browser();
    expect((await pat.signInByPassword(PAT, PASSWORD)).status).toBe(303);
  });
});

/** Real HTTP to the broker's loopback port, whatever host the URL names (as after DNS rebinding). */
const rebound: Transport = (url, init) => {
  const target = new URL(url);
  const headers = new Headers(init.headers);
  headers.set('host', target.host);
  const { port } = new URL(dev.url);
  return overHttp(`http://127.0.0.1:${port}${target.pathname}${target.search}`, {
    ...init,
    headers,
  });
};

describe('the Host header', { timeout: 60_000 }, () => {
  it("refuses requests for any name but the broker's own (DNS rebinding)", async () => {
    const { port } = new URL(dev.url);
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `localhost:${Number(port) + 1}`,
      `localhost.evil.example:${port}`,
      `127.0.0.2:${port}`,
      `localhost`,
    ]) {
      const stranger = new FakeBrowser(dev.broker, `http://${host}`, rebound);
      for (const response of [
        await stranger.navigate('/_platform/auth/sign-in'),
        await stranger.request('/_platform/auth/email-link', {
          form: { email: PAT, returnTo: '/', csrf: 'x' },
        }),
        await stranger.request('/_platform/api/session', { method: 'POST' }),
      ]) {
        expect(response.status, host).toBe(403);
        expect(await codeOf(response), host).toBe('HOST_NOT_ALLOWED');
      }
    }
  });

  it('serves the loopback names at its own port', async () => {
    const { port } = new URL(dev.url);
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `notes.localhost:${port}`,
      `LOCALHOST:${port}`,
    ]) {
      const visitor = new FakeBrowser(dev.broker, `http://${host}`, rebound);
      expect((await visitor.navigate('/_platform/auth/sign-in')).status, host).toBe(200);
    }
  });

  it("builds email links from the broker's own URL, not the Host header", async () => {
    const { port } = new URL(dev.url);
    const visitor = new FakeBrowser(dev.broker, `http://127.0.0.1:${port}`, rebound);
    const token = await visitor.requestLink(PAT);
    const [message] = await dev.broker.outbox.list(1);
    expect(message?.text).toContain(`${dev.url}/_platform/auth/confirm?token=${token}`);
    expect(
      printed.some((line) => line.includes(`${dev.url}/_platform/auth/confirm?token=${token}`)),
    ).toBe(true);
  });
});
