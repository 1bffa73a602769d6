// The central sign-in of `platform serve` as people use it, in Chromium: on a service with no app
// yet, `platform login` is approved at `{base_url}`; then a private deployed app at its
// Host-routed address sends a browser without a session there, and it comes back signed in.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/broker.ts';
import { launchChromium, openPage, sessionCookie } from '../helpers/chromium.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  deploy,
  freePort,
  node,
  root,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  WHOAMI_MANIFEST,
  WHOAMI_SOURCE,
} from './serve-harness.ts';

const manifest = WHOAMI_MANIFEST;

const whoamiSource = WHOAMI_SOURCE;

const PASSWORD = 'a long enough password';

/** Signs in with the password on the sign-in page `page` shows now. */
async function signInHere(page: Page): Promise<void> {
  await page.click('summary');
  await page.fill('#email', 'ada@example.com');
  await page.fill('#password', PASSWORD);
  await page.click('#password-sign-in');
}

describe('the central sign-in of platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: ChildProcess;
  let browser: Browser;
  let port: number;
  let base: string;

  beforeAll(async () => {
    [postgres, secrets, dir, browser] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-sign-in-'),
      launchChromium(),
    ]);
    port = await freePort();
    base = `http://localhost:${port}`;
    await writeFiles(join(dir.path, 'todo'), {
      'platform.yaml': manifest,
      'functions/whoami/index.ts': whoamiSource,
      'public/index.html': '<h1 id="todo">Todo</h1>',
    });
    service = startService(serveEnv(postgres.url, base, port, dir.path));
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
  }, 80_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await browser?.close();
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  it('approves platform login at {base_url} before any app is deployed, then deploys with it', async () => {
    const page = await openPage(browser);
    const child = spawn(
      process.execPath,
      node([join(root, 'packages/broker/src/bin.ts'), 'login', '--to', base]),
      { cwd: root, env: { ...secrets.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const out: string[] = [];
    const err: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => err.push(line));
    const asked = new Promise<{ url: string; code: string }>((resolve) => {
      let url: string | undefined;
      createInterface({ input: child.stdout }).on('line', (line) => {
        out.push(line);
        url ??= /(http:\S+\/account-logins\/\S+)/.exec(line)?.[1];
        const code = /the code ([A-Z]{4}-[A-Z]{4})/.exec(line)?.[1];
        if (url !== undefined && code !== undefined) resolve({ url, code });
      });
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const { url, code } = await asked;
    expect(new URL(url).origin).toBe(base);
    // Not signed in at {base_url}: its own sign-in page, then back to the approval.
    await page.goto(url);
    expect(new URL(page.url()).origin).toBe(base);
    expect(new URL(page.url()).pathname).toBe('/_platform/auth/sign-in');
    await signInHere(page);
    await page.waitForURL((at) => at.pathname === new URL(url).pathname);
    await page.fill('#code', code);
    await page.click('#approve');
    await page.waitForSelector('#decided');
    expect(await exited, err.join('\n')).toBe(0);
    expect(out.join('\n')).toContain(`Signed in to ${base} as ada@example.com`);

    await deploy(secrets.env, join(dir.path, 'todo'), base, 'todo');
    await page.context().close();
  }, 90_000);

  it('relays a browser signed in at {base_url} to a private app, which starts its own session', async () => {
    const page = await openPage(browser);
    await page.goto(`${base}/_platform/auth/sign-in`);
    await signInHere(page);
    await page.waitForURL((at) => at.pathname === '/');
    const app = `http://todo.localhost:${port}`;
    await page.goto(`${app}/`);
    await page.waitForSelector('#todo');
    expect(new URL(page.url()).origin).toBe(app);
    expect(await sessionCookie(page)).toBeDefined();
    const who = await page.evaluate(async () => (await fetch('/api/whoami')).json());
    expect(who).toEqual({ result: { user: expect.any(String) } });
    await page.context().close();
  }, 60_000);

  it('sends a browser without a session from a private app to sign in at {base_url} and back', async () => {
    const page = await openPage(browser);
    const app = `http://todo.localhost:${port}`;
    await page.goto(`${app}/index.html?from=test`);
    expect(new URL(page.url()).origin).toBe(base);
    expect(new URL(page.url()).pathname).toBe('/_platform/auth/sign-in');
    await signInHere(page);
    await page.waitForSelector('#todo');
    expect(page.url()).toBe(`${app}/index.html?from=test`);
    await page.context().close();
  }, 60_000);
});
