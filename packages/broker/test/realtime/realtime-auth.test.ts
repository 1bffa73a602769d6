import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser } from '../auth/helpers.ts';
import { TestSocket } from './realtime-client.ts';

// Realtime with the broker's real sign-in: a browser's session cookie, an app access token
// (spec 2.2: it acts as the owner), the origin check, and the end of a session closing sockets.
let env: Awaited<ReturnType<typeof authBroker>>;
const sockets: TestSocket[] = [];

const cookieOf = (browser: FakeBrowser) =>
  [...browser.jar.entries()].map(([name, c]) => `${name}=${c.value}`).join('; ');

const open = async (headers: Record<string, string>) => {
  const socket = await TestSocket.open(env.broker.server.url, headers);
  sockets.push(socket);
  return socket;
};

const signedInBrowser = async (email: string) => {
  await env.broker.auth.grantAccess(email);
  const browser = FakeBrowser.overHttp(env.broker);
  await browser.signInByEmail(email);
  return browser;
};

beforeAll(async () => {
  env = await authBroker({
    broker: {
      realtime: { channels: { 'room:*': { join: 'signed-in', send: 'signed-in' } }, tables: [] },
    },
  });
}, 120_000);
afterAll(async () => {
  for (const socket of sockets) await socket.close();
  await env?.cleanup();
});

describe('realtime sign-in', () => {
  it('lets an app access token join and broadcast as the owner', async () => {
    const { token } = await env.broker.auth.appTokens.issue('realtime');
    const owner = await env.broker.auth.owner();
    const socket = await open({ authorization: `Bearer ${token}` });
    const joined = await socket.request({
      type: 'join',
      channel: 'room:t',
      presence: { bot: true },
    });
    expect(joined).toMatchObject({ ok: true, members: [{ user: owner.id, state: { bot: true } }] });
    const sent = await socket.request({
      type: 'broadcast',
      channel: 'room:t',
      event: 'e',
      payload: 1,
    });
    expect(sent).toMatchObject({ ok: true });
  });

  it('closes a browser session’s socket at its next frame once the session ended', async () => {
    const browser = await signedInBrowser('bob@example.com');
    const socket = await open({ cookie: cookieOf(browser), origin: env.broker.server.url });
    expect(await socket.request({ type: 'join', channel: 'room:s' })).toMatchObject({ ok: true });
    await env.broker.auth.endSession(
      new Request(env.broker.server.url, { headers: { cookie: cookieOf(browser) } }),
    );
    socket.ws.send(JSON.stringify({ type: 'join', ref: 'after', channel: 'room:s2' }));
    const error = await socket.waitFor((f) => f.type === 'error');
    expect(error).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    await new Promise((resolve) => socket.ws.once('close', resolve));
    expect(socket.closed?.code).toBe(4401);
    expect(socket.frames.some((f) => f.ref === 'after')).toBe(false);
  });

  it('closes an idle socket within the recheck interval once its token is revoked', async () => {
    const issued = await env.broker.auth.appTokens.issue('revoked');
    const socket = await open({ authorization: `Bearer ${issued.token}` });
    expect(await socket.request({ type: 'join', channel: 'room:r' })).toMatchObject({ ok: true });
    await env.broker.auth.appTokens.revoke(issued.id);
    const closed = new Promise((resolve) => socket.ws.once('close', resolve));
    expect(await socket.waitFor((f) => f.type === 'error', 7000)).toMatchObject({
      error: { code: 'AUTH_REQUIRED' },
    });
    await closed;
    expect(socket.closed?.code).toBe(4401);
  }, 10_000);

  it('refuses a socket opened by another site’s page with the user’s cookie', async () => {
    const browser = await signedInBrowser('carol@example.com');
    await expect(
      TestSocket.open(env.broker.server.url, {
        cookie: cookieOf(browser),
        origin: 'https://evil.example',
      }),
    ).rejects.toThrow('HTTP 403');
  });
});
