// Integrations of apps deployed to `platform serve`, as an organisation uses them: the service in
// its own process on a real PostgreSQL, the sales-crm example's apps deployed with the CLI, an
// organisation connection to the `calendar` integration made by signing in at a real OAuth 2
// server on loopback (in Chromium, from the app's console), and a Function of the sales app
// whose `ctx.integrations` call reaches the calendar app's Function, which reaches the provider.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from '../helpers/chromium.ts';
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
  adaCredential,
  call,
  freePort,
  keepCredential,
  cli as platformCli,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
} from './serve-harness.ts';

const PASSWORD = 'a long enough password';

describe('integrations of deployed apps', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let oauth: TestOAuthServer;
  let browser: Browser;
  let service: ChildProcess;
  let port: number;
  let base: string;

  const deploy = (app: string, folder = app) =>
    platformCli(secrets.env, ['deploy', join(dir.path, folder), '--to', base, '--app', app]);

  beforeAll(async () => {
    [postgres, secrets, dir, browser] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-integrations-'),
      launchChromium(),
    ]);
    port = await freePort();
    base = `http://localhost:${port}`;
    oauth = await startOAuthServer({
      clientId: 'sales-crm-example',
      redirectUri: () => `${base}/v1/custom-integrations/oauth/callback`,
      accessTokenLifetime: 600,
    });
    await prepareSalesCrm(dir.path, oauth);
    service = startService({
      ...serveEnv(postgres.url, base, port, dir.path),
      // The calendar's Functions reach its token endpoint and API; nothing else is allowed.
      PLATFORM_ALLOW_NET: oauth.host,
    });
    // Its request log is read by no one here; drained so the pipe never fills.
    service.stdout?.resume();
    expect((await setUpAdministrator(base, await setupKey(service))).status).toBe(200);
    const token = await adaCredential(postgres.url);
    expect(await keepCredential(secrets.env, dir.path, base, token)).toBe(0);
    for (const app of SALES_CRM_APPS) {
      const deployed = await deploy(app);
      expect(deployed.code, `${app}: ${deployed.err}`).toBe(0);
    }
    await setCalendarSecret(secrets.env, base, oauth);
  }, 240_000);

  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await browser?.close();
    await oauth?.close();
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  it('refuses a deployment publishing an integration name another active app publishes', async () => {
    const refused = await deploy('calendar-copy', 'calendar');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/calendar/);
    expect(refused.err).toMatch(/already|another app|published/i);
    expect((await call(port, `calendar-copy.localhost:${port}`, '/')).status).toBe(404);
  }, 120_000);

  it('answers a call on a slot with no connection with the production code, not a fake', async () => {
    const answer = await call(port, `sales.localhost:${port}`, '/api/calendar/account');
    expect(answer.status).not.toBe(200);
    expect(answer.body).not.toContain('fake-calendar-user');
    expect(JSON.parse(answer.body).error.code).toMatch(/^INTEGRATION_/);
  }, 60_000);

  it('connects the calendar by signing in at the provider, and a Function call reaches it', async () => {
    const page = await openPage(browser);
    try {
      const calendar = `http://calendar.localhost:${port}`;
      // A private app: the browser signs in at the central sign-in and comes back.
      await page.goto(`${calendar}/_platform/dashboard`);
      await page.click('summary');
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.click('#password-sign-in');
      await page.waitForURL((url) => url.origin === calendar);
      const connectUrl = await connectCalendar(page, calendar, 'ada@example.com');
      // The connect page and the OAuth redirect URI are on {base_url} (spec 2.10).
      expect(new URL(connectUrl).origin).toBe(base);
      expect(oauth.authorizations.at(-1)?.get('redirect_uri')).toBe(
        `${base}/v1/custom-integrations/oauth/callback`,
      );
      // The calendar app's exchange Function turned the code into tokens at the provider.
      expect(oauth.grants.authorization_code).toBe(1);
    } finally {
      await page.context().close();
    }
    const answer = await call(port, `sales.localhost:${port}`, '/api/calendar/account');
    expect(answer.status, answer.body).toBe(200);
    // The provider's own answer: the user its access token was issued to, not a fake.
    expect(JSON.parse(answer.body)).toEqual({ result: { user: 'user-1' } });
  }, 120_000);
});
