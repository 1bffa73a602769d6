// The client's address under `platform serve`, as the per-client sign-in limits see it: the
// socket's peer, or, from a proxy named in PLATFORM_TRUSTED_PROXIES, the address that proxy
// appended to X-Forwarded-For. The service runs in its own process on a real PostgreSQL; the
// "proxy" is a connection from 127.0.0.2 (trusted), the other clients connect from 127.0.0.3
// (not trusted). Each attempt comes from a fresh browser (no cookie kept), as a client that
// sheds cookies would send it.
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardedClient } from '../../src/serve/forwarded-client.ts';
import { trustedProxyList } from '../../src/serve/network-settings.ts';
import { loadServeSettings } from '../../src/serve/serve-settings.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  freePort,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startServeMail,
  startService,
  waitReady,
} from './serve-harness.ts';

const TRUSTED_PROXY = '127.0.0.2';
const UNTRUSTED_PEER = '127.0.0.3';

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly cookies: string[];
}

describe('the client address under platform serve', () => {
  let postgres: PostgresServer;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let mail: Awaited<ReturnType<typeof startServeMail>> | undefined;
  let port: number;
  let base: string;
  let registered = 0;

  /** One request to {base_url} from the local address `from`. */
  const send = (
    from: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ) =>
    new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method,
          localAddress: from,
          agent: false,
          headers: { host: `localhost:${port}`, ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => {
            const setCookie = res.headers['set-cookie'] ?? [];
            resolve({
              status: res.statusCode ?? 0,
              body: text,
              cookies: setCookie.map((c) => c.split(';')[0] as string),
            });
          });
        },
      );
      req.once('error', reject);
      req.end(body);
    });

  /**
   * A new account registered with a password at the central sign-in, by a fresh browser
   * connecting from `from` with `X-Forwarded-For: forwardedFor`; answers the status (303 signed
   * in, 429 too many new accounts from this client).
   */
  async function register(from: string, forwardedFor?: string): Promise<number> {
    const xff: Record<string, string> = forwardedFor ? { 'x-forwarded-for': forwardedFor } : {};
    const page = await send(from, 'GET', '/_platform/auth/sign-in', xff);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(csrf, page.body).toBeDefined();
    registered += 1;
    const form = new URLSearchParams({
      email: `person${registered}@example.com`,
      password: 'a long enough password',
      csrf: csrf as string,
      returnTo: '/',
    }).toString();
    const posted = await send(
      from,
      'POST',
      '/_platform/auth/password',
      {
        ...xff,
        'content-type': 'application/x-www-form-urlencoded',
        origin: base,
        cookie: page.cookies.join('; '),
      },
      form,
    );
    return posted.status;
  }

  beforeAll(async () => {
    [postgres, dir] = await Promise.all([startPostgres(), tempDir('serve-client-')]);
    port = await freePort();
    base = `http://localhost:${port}`;
    // A new account's confirmation email must go somewhere: without mail, no account is made.
    mail = await startServeMail(dir.path);
    service = startService({
      ...serveEnv(postgres.url, base, port, dir.path),
      ...mail.env,
      PLATFORM_TRUSTED_PROXIES: TRUSTED_PROXY,
    });
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
    await waitReady(port, `localhost:${port}`);
  }, 90_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await mail?.sink.close();
    await postgres?.stop();
    await dir?.remove();
  });

  it('counts each client behind a trusted proxy by the address the proxy names', async () => {
    // Five new accounts per client in the window (the default limit); the sixth is refused,
    // though each came from a fresh browser.
    for (let i = 0; i < 5; i += 1) expect(await register(TRUSTED_PROXY, '203.0.113.1')).toBe(303);
    expect(await register(TRUSTED_PROXY, '203.0.113.1')).toBe(429);
    // What the client itself wrote on the left of the header does not make it another client.
    expect(await register(TRUSTED_PROXY, '198.51.100.7, 203.0.113.1')).toBe(429);
    // Another client behind the same proxy has its own count.
    expect(await register(TRUSTED_PROXY, '203.0.113.2')).toBe(303);
  }, 60_000);

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    // Believed, the header would make this the client whose count is spent.
    expect(await register(UNTRUSTED_PEER, '203.0.113.1')).toBe(303);
  }, 30_000);
});

describe('the trusted proxies setting', () => {
  const load = (value: string) =>
    loadServeSettings({
      env: { PLATFORM_DATABASE_URL: 'postgres://u@localhost/db', PLATFORM_TRUSTED_PROXIES: value },
      cwd: '/tmp',
    });

  it('takes addresses and subnets, and names the setting for anything else', async () => {
    const loaded = await load('127.0.0.1, ::1,10.0.0.0/8');
    expect(loaded.ok && loaded.settings.trustedProxies).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    for (const bad of ['proxy.example.com', '10.0.0.0/33', '127.0.0.1/8/1']) {
      const refused = await load(bad);
      expect(refused.ok).toBe(false);
      expect(refused.ok ? [] : refused.problems).toEqual([
        expect.stringMatching(/^PLATFORM_TRUSTED_PROXIES: /),
      ]);
    }
  });

  it('walks X-Forwarded-For from the right while the hop is trusted', () => {
    const trusted = trustedProxyList(['10.0.0.0/8', '::1']);
    expect(forwardedClient('10.0.0.5', '203.0.113.1', trusted)).toBe('203.0.113.1');
    // Two trusted proxies in a row, and a client that wrote its own entry first.
    expect(forwardedClient('::1', '6.6.6.6, 203.0.113.1, 10.1.1.1', trusted)).toBe('203.0.113.1');
    expect(forwardedClient('::ffff:10.0.0.5', '203.0.113.1', trusted)).toBe('203.0.113.1');
    // An untrusted peer is the client whatever it sends; so is a peer with no header.
    expect(forwardedClient('198.51.100.1', '203.0.113.1', trusted)).toBe('198.51.100.1');
    expect(forwardedClient('10.0.0.5', null, trusted)).toBe('10.0.0.5');
    // A hop that is no address ends the walk at the proxy that wrote it.
    expect(forwardedClient('10.0.0.5', 'unknown', trusted)).toBe('10.0.0.5');
    expect(forwardedClient('10.0.0.5', '203.0.113.1', trustedProxyList([]))).toBe('10.0.0.5');
  });
});
