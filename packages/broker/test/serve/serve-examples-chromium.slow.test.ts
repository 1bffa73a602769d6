// The examples deployed to `platform serve` and used as their people use them, end to end: a
// real PostgreSQL (Debian's), the service in its own process, `platform login` by the device
// flow approved in headless Chromium, `platform deploy` of examples/todo and of the three apps
// of examples/sales-crm, then each app at its Host-routed address `<app>.localhost:<port>` in
// Chromium: sign-in, Function calls, a file upload, a job, and an integration call that reaches
// a real OAuth 2 provider on loopback. Bounded: two minutes to start, four for each step.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, sessionCookie } from '../helpers/chromium.ts';
import { startOAuthServer, type TestOAuthServer } from '../helpers/oauth-server.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  connectCalendar,
  prepareSalesCrm,
  SALES_CRM_APPS,
  setCalendarSecret,
} from './sales-crm-deployment.ts';
import {
  deploy,
  freePort,
  node,
  root,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startServeMail,
  startService,
} from './serve-harness.ts';

const PASSWORD = 'a long enough password';
const EMAIL = 'ada@example.com';

/** Signs in with the password on the sign-in page `page` shows now. */
async function signInHere(page: Page): Promise<void> {
  await page.click('summary');
  await page.fill('#email', EMAIL);
  await page.fill('#password', PASSWORD);
  await page.click('#password-sign-in');
}

/**
 * Calls the app's Function `name` from `page` with the session token, as @platform/browser
 * sends it (the token from the session cookie); answers the status and the body.
 */
const callFunction = (page: Page, name: string, input: unknown) =>
  page.evaluate(
    async ([fn, body]) => {
      const session = await fetch('/_platform/api/session', { method: 'POST' });
      const { token } = (await session.json()) as { token: string };
      const response = await fetch(`/_platform/api/functions/${fn}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { result?: unknown } };
    },
    [name, input] as const,
  );

describe('the examples deployed to platform serve, in Chromium', { timeout: 240_000 }, () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let oauth: TestOAuthServer;
  let browser: Browser;
  let service: ChildProcess;
  let mail: Awaited<ReturnType<typeof startServeMail>> | undefined;
  let port: number;
  let base: string;
  const at = (app: string) => `http://${app}.localhost:${port}`;

  beforeAll(async () => {
    [postgres, secrets, dir, browser] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-examples-'),
      launchChromium(),
    ]);
    port = await freePort();
    base = `http://localhost:${port}`;
    oauth = await startOAuthServer({
      clientId: 'sales-crm-example',
      redirectUri: () => `${base}/v1/custom-integrations/oauth/callback`,
      accessTokenLifetime: 600,
    });
    await cp(join(root, 'examples/todo'), join(dir.path, 'todo'), {
      recursive: true,
      filter: (path) => !path.includes('.platform'),
    });
    await prepareSalesCrm(dir.path, oauth);
    // The todo example's reminder job sends an email: the service sends it to this sink.
    mail = await startServeMail(dir.path);
    service = startService({
      ...serveEnv(postgres.url, base, port, dir.path),
      ...mail.env,
      PLATFORM_ALLOW_NET: oauth.host,
    });
    service.stdout?.resume();
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await mail?.sink.close();
    await browser?.close();
    await oauth?.close();
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  it('signs the CLI in by the device flow approved in Chromium, then deploys every app', async () => {
    const page = await openPage(browser);
    const child = spawn(
      process.execPath,
      node([join(root, 'packages/broker/src/bin.ts'), 'login', '--to', base]),
      { cwd: root, env: { ...secrets.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const err: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => err.push(line));
    const asked = new Promise<{ url: string; code: string }>((resolve) => {
      let url: string | undefined;
      createInterface({ input: child.stdout }).on('line', (line) => {
        url ??= /(http:\S+\/account-logins\/\S+)/.exec(line)?.[1];
        const code = /the code ([A-Z]{4}-[A-Z]{4})/.exec(line)?.[1];
        if (url !== undefined && code !== undefined) resolve({ url, code });
      });
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const { url, code } = await asked;
    await page.goto(url);
    await signInHere(page);
    await page.waitForURL((where) => where.pathname === new URL(url).pathname);
    await page.fill('#code', code);
    await page.click('#approve');
    await page.waitForSelector('#decided');
    expect(await exited, err.join('\n')).toBe(0);
    await page.context().close();

    for (const app of ['todo', ...SALES_CRM_APPS]) {
      await deploy(secrets.env, join(dir.path, app), base, app);
    }
    await setCalendarSecret(secrets.env, base, oauth);
  });

  it('signs in at the todo app, adds a todo, attaches a file and runs a reminder job', async () => {
    const page = await openPage(browser);
    const files = await tempDir('serve-upload-');
    try {
      const todo = at('todo');
      await page.goto(`${todo}/_platform/auth/sign-in`);
      await signInHere(page);
      await page.waitForURL((where) => where.origin === todo && where.pathname === '/');
      expect(await sessionCookie(page)).toBeDefined();
      await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
      // A Function call from the page's own script: createTodo, then listTodos.
      await page.fill('#title', 'Water the plants');
      await page.click('#new-todo button[type="submit"]');
      const item = page.locator('#todos li', { hasText: 'Water the plants' });
      await item.waitFor();
      // A file upload through the attachFile Function into the app's file storage.
      const upload = join(files.path, 'plants.txt');
      await writeFile(upload, 'fern, basil');
      await item.locator('input[type=file]').setInputFiles(upload);
      await expect.poll(() => item.locator('small').textContent()).toContain('plants.txt');
      // The bytes arrived intact in the app's file storage, read back through a Function.
      const listed = await callFunction(page, 'listTodos', {});
      const { todos } = listed.body.result as { todos: { id: string; title: string }[] };
      const watered = todos.find((one) => one.title === 'Water the plants');
      const read = await callFunction(page, 'readAttachment', { todoId: watered?.id });
      const attachment = read.body.result as { name: string; base64: string };
      expect(attachment.name).toBe('plants.txt');
      expect(Buffer.from(attachment.base64, 'base64').toString()).toBe('fern, basil');
      // A job: createTodo with a reminder enqueues one on the `reminders` queue, due now; its
      // owner reads its state on the owner API from the same signed-in browser.
      const created = await callFunction(page, 'createTodo', {
        title: 'Call the plumber',
        remindInMinutes: 0,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const jobId = (created.body as { result: { reminderJobId: string } }).result.reminderJobId;
      expect(jobId).toEqual(expect.any(String));
      const jobState = () =>
        page.evaluate(async (id) => {
          const response = await fetch(`/v1/apps/todo/jobs/${encodeURIComponent(id)}`);
          return ((await response.json()) as { job?: { state: string } }).job?.state;
        }, jobId);
      await expect.poll(jobState, { timeout: 30_000, interval: 250 }).toBe('succeeded');
    } finally {
      await page.context().close();
      await files.remove();
    }
  });

  it('connects the calendar at the provider, and the sales page’s call reaches it', async () => {
    const page = await openPage(browser);
    try {
      const calendar = at('calendar');
      // A private app: the browser signs in first.
      await page.goto(`${calendar}/_platform/dashboard`);
      await signInHere(page);
      await page.waitForURL((where) => where.origin === calendar);
      await connectCalendar(page, calendar, EMAIL);
      expect(oauth.grants.authorization_code).toBe(1);
      const sales = at('sales');
      await page.goto(`${sales}/`);
      const answer = await page.evaluate(async () => {
        const response = await fetch('/api/calendar/account');
        return { status: response.status, body: await response.json() };
      });
      expect(answer).toEqual({ status: 200, body: { result: { user: 'user-1' } } });
    } finally {
      await page.context().close();
    }
  });
});
