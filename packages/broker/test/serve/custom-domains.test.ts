// Custom domains of `platform serve` as an owner and a browser use them: the CLI adds a domain,
// the service fetches the token from that domain (shop.example.test, whose verification goes to
// a small server of this test, as the domain's own server would answer), and the app then answers
// on it. A browser's Function call there keeps its original data authorization for 60 seconds of
// the service's (fake) clock, and later data calls fail with AUTH_REQUIRED. A private app's
// browser without a session on its custom domain signs in at {base_url} and comes back signed in
// on that domain; the relay hands a sign-in to no other host.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/kernel/clock.ts';
import { createServiceLogger } from '../../src/observability/logger.ts';
import { DOMAIN_VERIFICATION_PATH, domainNameOf } from '../../src/serve/custom-domains.ts';
import { loadServeSettings } from '../../src/serve/serve-settings.ts';
import { type RunningService, startServe } from '../../src/serve/start-serve.ts';
import { writeFiles } from '../helpers/broker.ts';
import { openPage } from '../helpers/chromium.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  call,
  cli,
  deploy,
  freePort,
  keepCredential,
  setUpAdministrator,
  WHOAMI_MANIFEST,
  WHOAMI_SOURCE,
} from './serve-harness.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: long
    entrypoint: functions/long/index.ts
    access: user
    route:
      path: /api/long
      methods: [GET]
`;

// Writes a mark, then reads it back every 100 ms for 3 s: answers the code of the first read
// that fails, or 'none'.
const longSource = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async ({ data }) => {
    const marks = data.table<{ id: string; text: string }>('marks');
    const id = crypto.randomUUID();
    await marks.create({ id, text: 'started' });
    for (let i = 0; i < 30; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      try {
        await marks.getById(id);
      } catch (error) {
        return { later: (error as { code?: string }).code ?? 'unknown', reads: i };
      }
    }
    return { later: 'none', reads: 30 };
  },
});
`;

const migration = `create table marks (id uuid primary key, text text not null);
alter table marks enable row level security;
create policy marks_all on marks for all using (true) with check (true);
`;

const PASSWORD = 'a long enough password';

const privateManifest = WHOAMI_MANIFEST;

const whoamiSource = WHOAMI_SOURCE;

describe('custom domains of platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: RunningService;
  let browser: Browser;
  let domainServer: Server;
  /** What the domain's own server answers at the verification path. */
  let served = 'nothing yet';
  /** What the other domain's (desk.example.test, the private app's) own server answers there. */
  let deskServed = 'nothing yet';
  let port: number;
  let base: string;
  let adaToken: string;
  const clock = new ManualClock();

  const domains = (args: string[]) =>
    cli(secrets.env, ['domains', ...args, '--to', base, '--app', 'shop']);

  beforeAll(async () => {
    [postgres, secrets, dir, browser] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('custom-domains-'),
      // As launchChromium, and shop.example.test, which stands for the owner's domain, leads
      // to this machine as its DNS would lead to the service.
      chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--no-first-run',
          '--host-resolver-rules=MAP shop.example.test 127.0.0.1, MAP desk.example.test 127.0.0.1',
        ],
        timeout: 30_000,
      }),
    ]);
    domainServer = createServer((request, response) => {
      const token =
        request.url !== DOMAIN_VERIFICATION_PATH
          ? undefined
          : request.headers.host === 'shop.example.test'
            ? served
            : request.headers.host === 'desk.example.test'
              ? deskServed
              : undefined;
      response.writeHead(token === undefined ? 404 : 200, { 'content-type': 'text/plain' });
      response.end(token === undefined ? 'not here' : `${token}\n`);
    });
    await new Promise<void>((resolve) => domainServer.listen(0, '127.0.0.1', resolve));
    const domainPort = (domainServer.address() as AddressInfo).port;
    port = await freePort();
    base = `http://localhost:${port}`;
    const loaded = await loadServeSettings({
      env: {
        PLATFORM_DATABASE_URL: postgres.url,
        PLATFORM_BASE_URL: base,
        PLATFORM_LISTEN: `127.0.0.1:${port}`,
        PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
        PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
        PLATFORM_FILES_DIR: join(dir.path, 'files'),
        PLATFORM_DRAIN_SECONDS: '5',
      },
      cwd: dir.path,
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    let key = '';
    service = await startServe({
      settings: loaded.settings,
      logger: createServiceLogger({ level: 'error', destination: { write: () => undefined } }),
      announce: (line) => {
        key = /key=([A-Za-z0-9_-]+)/.exec(line)?.[1] ?? key;
      },
      clock,
      // The domain's verification goes to this test's server: shop.example.test stands for a real
      // domain whose server the owner controls.
      domainFetchTarget: () => ({ host: '127.0.0.1', port: domainPort }),
    });
    expect((await setUpAdministrator(base, key)).status).toBe(200);
    adaToken = await adaCredential(postgres.url);
    expect(await keepCredential(secrets.env, dir.path, base, adaToken)).toBe(0);
    await writeFiles(join(dir.path, 'shop'), {
      'platform.yaml': manifest,
      'functions/long/index.ts': longSource,
      'migrations/001_marks.sql': migration,
      'public/index.html': '<h1 id="shop">Shop</h1>',
    });
    await writeFiles(join(dir.path, 'desk'), {
      'platform.yaml': privateManifest,
      'functions/whoami/index.ts': whoamiSource,
      'public/index.html': '<h1 id="desk">Desk</h1>',
    });
    for (const app of ['shop', 'desk']) {
      await deploy(secrets.env, join(dir.path, app), base, app);
    }
  }, 150_000);

  afterAll(async () => {
    await service?.drain();
    await browser?.close();
    domainServer?.close();
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  it('refuses names that are not custom domains', () => {
    for (const bad of ['shop', 'localhost', 'todo.localhost', '10.0.0.1', 'a..b', 'x_y.example']) {
      expect(() => domainNameOf(bad, 'localhost'), bad).toThrow(/not a custom domain/);
    }
    expect(domainNameOf(' Shop.Example.com. ', 'apps.example.com')).toBe('shop.example.com');
  });

  it('answers on a domain only once the token served there was verified', async () => {
    const added = await domains(['add', 'shop.example.test']);
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    const token = /^(platform-domain-\S+)$/m.exec(added.out)?.[1] as string;
    expect(token).toBeDefined();
    expect(added.out).toContain(`http://shop.example.test${DOMAIN_VERIFICATION_PATH}`);
    // Pending: the service answers nothing of the app there.
    const pending = await call(port, `shop.example.test:${port}`, '/');
    expect(pending.status).toBe(404);
    expect(pending.body).not.toContain('Shop');

    served = 'platform-domain-not-the-token';
    const wrong = await domains(['verify', 'shop.example.test']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toContain('DOMAIN_NOT_VERIFIED');
    expect((await call(port, `shop.example.test:${port}`, '/')).status).toBe(404);

    served = token;
    const verified = await domains(['verify', 'shop.example.test']);
    expect(verified.err).toBe('');
    expect(verified.out).toContain('shop.example.test is verified');
    const page = await call(port, `shop.example.test:${port}`, '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h1 id="shop">Shop</h1>');
    expect((await domains(['list'])).out).toBe('shop.example.test  verified');

    // Nobody adds it again, to this app or another.
    const again = await fetch(`${base}/v1/apps/shop/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'Shop.Example.TEST' }),
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('DOMAIN_TAKEN');
    // Without a member's credential, nothing.
    expect((await fetch(`${base}/v1/apps/shop/domains`)).status).toBe(401);
  }, 60_000);

  /** A browser signed in at `origin` with ada's password. */
  async function signedIn(origin: string): Promise<Page> {
    const page = await openPage(browser);
    await page.goto(`${origin}/_platform/auth/sign-in`);
    await page.click('summary');
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', PASSWORD);
    await page.click('#password-sign-in');
    await page.waitForSelector('#shop');
    return page;
  }

  /** Starts the long Function in `page`, moves the clock 61 s once it wrote its mark. */
  async function longCallPastAMinute(page: Page): Promise<{ later: string; reads: number }> {
    const db = new pg.Client({
      connectionString: postgres.url.replace('/postgres?', '/platform_app_shop?'),
    });
    await db.connect();
    try {
      const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM marks');
      const before = Number(rows[0]?.n);
      const answer = page.evaluate(async () => (await fetch('/api/long')).json());
      const until = Date.now() + 20_000;
      while (Number((await db.query('SELECT count(*) AS n FROM marks')).rows[0]?.n) === before) {
        if (Date.now() > until) throw new Error('the Function wrote no mark');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      clock.advance(61_000);
      return ((await answer) as { result: { later: string; reads: number } }).result;
    } finally {
      await db.end();
    }
  }

  it("ends a custom-domain browser call's data authorization after 60 seconds, not refreshed", async () => {
    const page = await signedIn(`http://shop.example.test:${port}`);
    const result = await longCallPastAMinute(page);
    expect(result.later).toBe('AUTH_REQUIRED');
    await page.context().close();
  }, 60_000);

  it("keeps the data authorization of a call at the app's own address", async () => {
    const page = await signedIn(`http://shop.localhost:${port}`);
    const result = await longCallPastAMinute(page);
    expect(result).toEqual({ later: 'none', reads: 30 });
    await page.context().close();
  }, 60_000);

  /** The owner API of the private app's domains, as ada. */
  const deskDomains = (path: string, body?: unknown) =>
    fetch(`${base}/v1/apps/desk/domains${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });

  it('brings a browser without a session on a custom domain back signed in on that domain', async () => {
    const added = (await (await deskDomains('', { domain: 'desk.example.test' })).json()) as {
      domain: { token: string };
    };
    deskServed = added.domain.token;
    expect((await deskDomains('/desk.example.test/verify')).status).toBe(200);

    const page = await openPage(browser);
    const desk = `http://desk.example.test:${port}`;
    await page.goto(`${desk}/index.html?from=test`);
    // Relayed to the central sign-in at {base_url}.
    expect(new URL(page.url()).origin).toBe(base);
    expect(new URL(page.url()).pathname).toBe('/_platform/auth/sign-in');
    await page.click('summary');
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', PASSWORD);
    await page.click('#password-sign-in');
    await page.waitForSelector('#desk');
    expect(page.url()).toBe(`${desk}/index.html?from=test`);
    const who = await page.evaluate(async () => (await fetch('/api/whoami')).json());
    expect(who).toEqual({ result: { user: expect.any(String) } });
    await page.context().close();
  }, 60_000);

  it("hands a sign-in back to no host but the asking app's address and verified domains", async () => {
    // A browser signed in at {base_url}, which the relay would hand a code to.
    const page = await openPage(browser);
    await page.goto(`${base}/_platform/auth/sign-in`);
    await page.click('summary');
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', PASSWORD);
    await page.click('#password-sign-in');
    await page.waitForURL((at) => at.pathname === '/');
    const relay = async (domain: string) => {
      const query = new URLSearchParams({ app: 'desk', state: 'a'.repeat(64), to: '/', domain });
      const answer = await page.request.get(`${base}/_platform/auth/relay?${query}`, {
        maxRedirects: 0,
      });
      return { status: answer.status(), body: await answer.text() };
    };
    // Another site, another app's verified domain, the base domain: refused before any code.
    for (const domain of ['evil.example', 'shop.example.test', 'localhost', 'desk.localhost']) {
      const refused = await relay(domain);
      expect(refused.status, domain).toBe(400);
      expect(refused.body, domain).not.toContain('code=');
    }
    const handed = await relay('desk.example.test');
    expect(handed.status).toBe(200);
    expect(handed.body).toContain(`http://desk.example.test:${port}/_platform/auth/handoff?code=`);
    await page.context().close();
  }, 60_000);
});
