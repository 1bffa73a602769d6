// The SDK in a real headless Chromium (Debian's, installed by scripts/setup-system.sh) against
// a broker stand-in on loopback: cookies, fetch, streaming and cancellation are the browser's own.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { browserRoutes, fillPath } from '@platform/schema/routes';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Sdk = typeof import('../src/index.ts');
declare global {
  interface Window {
    sdk: Sdk;
  }
}

const COOKIE = 'platform_session';
const user = { id: 'u1', displayName: 'Ada', email: 'ada@example.com' };
const sessions = new Map<string, 'active' | 'revoked'>();
const tokens = new Set<string>();
const released: Array<() => void> = [];
let foreverClosed = false;

function cookieOf(request: IncomingMessage): string | undefined {
  return request.headers.cookie
    ?.split(/;\s*/)
    .find((pair) => pair.startsWith(`${COOKIE}=`))
    ?.slice(COOKIE.length + 1);
}

function json(response: ServerResponse, status: number, body: unknown, headers = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const authRequired = (response: ServerResponse, headers = {}) =>
  json(
    response,
    401,
    { error: { code: 'AUTH_REQUIRED', message: 'Sign in first.', retryable: false } },
    headers,
  );

const authorized = (request: IncomingMessage) =>
  tokens.has(request.headers.authorization?.replace(/^Bearer /, '') ?? '');

async function handle(request: IncomingMessage, response: ServerResponse, sdk: string) {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (path === '/') {
    response.writeHead(200, { 'content-type': 'text/html' });
    return response.end('<!doctype html><title>app</title><script src="/sdk.js"></script>');
  }
  if (path === '/sdk.js') {
    response.writeHead(200, { 'content-type': 'text/javascript' });
    return response.end(sdk);
  }
  if (path === '/test/sign-in') {
    const id = randomUUID();
    sessions.set(id, 'active');
    response.writeHead(204, { 'set-cookie': `${COOKIE}=${id}; HttpOnly; Path=/; SameSite=Strict` });
    return response.end();
  }
  if (path === '/test/sign-out') {
    for (const id of sessions.keys()) sessions.set(id, 'revoked');
    tokens.clear();
    response.writeHead(204);
    return response.end();
  }
  if (path === '/test/release') {
    released.shift()?.();
    response.writeHead(204);
    return response.end();
  }
  if (path === browserRoutes.session.path && request.method === 'POST') {
    const id = cookieOf(request);
    const state = id === undefined ? undefined : sessions.get(id);
    if (state === 'revoked') {
      return authRequired(response, { 'set-cookie': `${COOKIE}=; HttpOnly; Path=/; Max-Age=0` });
    }
    if (state === undefined)
      return json(response, 200, { user: null, token: null, expiresAt: null });
    const token = `jwt-${randomUUID()}`;
    tokens.add(token);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    return json(response, 200, { user, token, expiresAt });
  }
  if (path === fillPath(browserRoutes.functionCall.path, { name: 'echo' })) {
    if (!authorized(request)) return authRequired(response);
    let body = '';
    for await (const chunk of request) body += chunk;
    return json(response, 200, { result: { input: JSON.parse(body), user: user.id } });
  }
  if (path === fillPath(browserRoutes.functionStream.path, { name: 'story' })) {
    if (!authorized(request)) return authRequired(response);
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    response.write('once ');
    // The second chunk waits until the page has seen the first one.
    await new Promise<void>((resolve) => released.push(resolve));
    return response.end('upon a time');
  }
  if (path === fillPath(browserRoutes.functionStream.path, { name: 'forever' })) {
    if (!authorized(request)) return authRequired(response);
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    const timer = setInterval(() => response.write('tick'), 10);
    response.on('close', () => {
      clearInterval(timer);
      foreverClosed = true;
    });
    return;
  }
  response.writeHead(404);
  response.end();
}

let browser: Browser;
let page: Page;
const server = createServer();
let origin = '';

beforeAll(async () => {
  const bundle = await build({
    stdin: {
      contents: "export * from './src/index.ts';",
      resolveDir: new URL('..', import.meta.url).pathname,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'sdk',
    conditions: ['@platform/source'],
    platform: 'browser',
    write: false,
  });
  const sdk = bundle.outputFiles[0]!.text;
  server.on('request', (request, response) => {
    handle(request, response, sdk).catch(() => response.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    timeout: 30_000,
  });
  page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${origin}/`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server.closeAllConnections();
  server.close();
});

describe('@platform/browser in Chromium', { timeout: 20_000 }, () => {
  it('is signed out before sign-in and points to the sign-in page', async () => {
    const result = await page.evaluate(async () => ({
      user: await window.sdk.platform.auth.currentUser(),
      url: window.sdk.platform.auth.signInUrl(),
    }));
    expect(result.user).toBeNull();
    expect(result.url).toBe(
      `${origin}/_platform/auth/sign-in?returnTo=${encodeURIComponent(`${origin}/`)}`,
    );
  });

  it('reads the user and calls a Function through the HttpOnly session cookie', async () => {
    const result = await page.evaluate(async () => {
      await fetch('/test/sign-in');
      // A fresh instance: the ready `platform` above remembers it was signed out.
      const app = window.sdk.createPlatform();
      return {
        user: await app.auth.currentUser(),
        echo: await app.functions.call('echo', { text: 'hi' }),
        visibleCookies: document.cookie,
        storage: [localStorage.length, sessionStorage.length],
      };
    });
    expect(result.user).toEqual(user);
    expect(result.echo).toEqual({ input: { text: 'hi' }, user: 'u1' });
    expect(result.visibleCookies).toBe('');
    expect(result.storage).toEqual([0, 0]);
  });

  it('delivers a stream incrementally', async () => {
    const chunks = await page.evaluate(async () => {
      const seen: string[] = [];
      const decoder = new TextDecoder();
      const app = window.sdk.createPlatform();
      for await (const chunk of app.functions.stream('story', {})) {
        seen.push(decoder.decode(chunk));
        // The server sends the rest only once the first chunk has arrived here.
        if (seen.length === 1) await fetch('/test/release');
      }
      return seen;
    });
    expect(chunks[0]).toBe('once ');
    expect(chunks.join('')).toBe('once upon a time');
  });

  it('aborts the request when the stream is cancelled', async () => {
    foreverClosed = false;
    const first = await page.evaluate(async () => {
      const reader = window.sdk.createPlatform().functions.stream('forever', {}).getReader();
      const { value } = await reader.read();
      await reader.cancel();
      return new TextDecoder().decode(value);
    });
    expect(first).toContain('tick');
    await expect.poll(() => foreverClosed, { timeout: 5_000 }).toBe(true);
  });

  it('fails with AUTH_REQUIRED after sign-out and reports signed out', async () => {
    const result = await page.evaluate(async () => {
      const app = window.sdk.createPlatform();
      await app.auth.currentUser();
      await fetch('/test/sign-out', { method: 'POST' });
      const error = await app.functions.call('echo', { text: 'late' }).catch((e: unknown) => e);
      return {
        code: window.sdk.isPlatformError(error) ? error.code : String(error),
        instance: error instanceof window.sdk.PlatformError,
        user: await app.auth.currentUser(),
        visibleCookies: document.cookie,
        storage: [localStorage.length, sessionStorage.length],
      };
    });
    expect(result).toEqual({
      code: 'AUTH_REQUIRED',
      instance: true,
      user: null,
      visibleCookies: '',
      storage: [0, 0],
    });
  });
});
