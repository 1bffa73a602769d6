import { contextRoutes, fileRoutes, fillPath } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser } from '../auth/helpers.ts';

// Managed files over HTTP on loopback (spec 2.2: an app access token acts as the owner for
// managed Files), in a private app, with an app token and a real signed-in session.
let env: Awaited<ReturnType<typeof authBroker>>;
let browser: FakeBrowser;
let appToken = '';
let sessionToken = '';

const url = (path: string) => `${env.broker.server.url}${path}`;
const refPath = (route: { path: string }, ref: string) => url(fillPath(route.path, { ref }));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const upload = (token: string, name: string, text: string, type = 'text/plain') =>
  fetch(`${url(fileRoutes.upload.path)}?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': type },
    body: text,
  });

beforeAll(async () => {
  env = await authBroker();
  appToken = (await env.broker.auth.appTokens.issue('files')).token;
  await env.broker.auth.grantAccess('bob@example.com');
  browser = FakeBrowser.overHttp(env.broker);
  await browser.signInByEmail('bob@example.com');
  sessionToken = String((await browser.session()).body.token);
}, 120_000);
afterAll(() => env?.cleanup());

describe('managed files over HTTP', () => {
  it('uploads with an app token and reads back with a session, bytes and metadata', async () => {
    const created = await upload(appToken, 'notes été.txt', 'hello files');
    expect(created.status).toBe(201);
    const { file } = (await created.json()) as { file: { ref: string } };
    expect(file).toMatchObject({
      name: 'notes été.txt',
      contentType: 'text/plain',
      size: 11,
      generation: 1,
    });
    const download = await fetch(refPath(fileRoutes.download, file.ref), {
      headers: bearer(sessionToken),
    });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello files');
    expect(download.headers.get('content-type')).toBe('text/plain');
    expect(download.headers.get('content-disposition')).toContain(
      "filename*=UTF-8''notes%20%C3%A9t%C3%A9.txt",
    );
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    const info = await fetch(refPath(fileRoutes.info, file.ref), { headers: bearer(appToken) });
    expect(await info.json()).toEqual({ file });
    // A browser's cookie alone reads (GET), as for REST.
    const viaCookie = await browser.request(fillPath(fileRoutes.download.path, { ref: file.ref }));
    expect(await viaCookie.text()).toBe('hello files');
  });

  it('lets the uploader replace and remove a file, and nobody else', async () => {
    const { file } = (await (await upload(sessionToken, 'bob.txt', 'v1')).json()) as {
      file: { ref: string };
    };
    const byOwner = await fetch(refPath(fileRoutes.replace, file.ref), {
      method: 'PUT',
      headers: { ...bearer(appToken), 'content-type': 'text/plain' },
      body: 'owner was here',
    });
    expect(byOwner.status).toBe(403);
    expect(await byOwner.json()).toMatchObject({ error: { code: 'PERMISSION_DENIED' } });
    const replaced = await fetch(`${refPath(fileRoutes.replace, file.ref)}?name=bob-2.txt`, {
      method: 'PUT',
      headers: { ...bearer(sessionToken), 'content-type': 'text/markdown' },
      body: '# v2',
    });
    expect(await replaced.json()).toMatchObject({
      file: { ref: file.ref, name: 'bob-2.txt', contentType: 'text/markdown', generation: 2 },
    });
    const removed = await fetch(refPath(fileRoutes.remove, file.ref), {
      method: 'DELETE',
      headers: bearer(sessionToken),
    });
    expect(await removed.json()).toEqual({ ok: true });
    const gone = await fetch(refPath(fileRoutes.download, file.ref), { headers: bearer(appToken) });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: 'FILE_NOT_FOUND' } });
  });

  it('answers clear errors: no name, no type, no credentials, a cookie alone for a write', async () => {
    const noName = await fetch(url(fileRoutes.upload.path), {
      method: 'POST',
      headers: { ...bearer(appToken), 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(noName.status).toBe(400);
    expect(await noName.json()).toMatchObject({
      error: { code: 'INVALID_INPUT', details: { field: 'name' } },
    });
    const noType = await fetch(`${url(fileRoutes.upload.path)}?name=a`, {
      method: 'POST',
      headers: bearer(appToken),
      body: new Uint8Array([1, 2, 3]),
    });
    expect(noType.status).toBe(400);
    const stranger = await fetch(`${url(fileRoutes.upload.path)}?name=a`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(stranger.status).toBe(401);
    const cookieWrite = await browser.request(`${fileRoutes.upload.path}?name=a`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
    });
    expect(cookieWrite.status).toBe(401);
    expect(await cookieWrite.json()).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    // The handler context's routes take only invocation tokens (docs/auth.md).
    const runtime = await fetch(url(contextRoutes.filesInfo.path), {
      method: 'POST',
      headers: { ...bearer(appToken), 'content-type': 'application/json' },
      body: JSON.stringify({ ref: 'file_x' }),
    });
    expect(runtime.status).toBe(401);
    expect(await runtime.json()).toMatchObject({ error: { code: 'INVOCATION_TOKEN_INVALID' } });
  });
});
