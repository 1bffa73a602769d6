// Onboarding (spec 5.2) on `platform serve`, where the project's app does not exist yet: an
// agent with an agent credential calls start_onboarding on {base_url}'s MCP endpoint; the person
// confirms the project-aware email in Chromium; the owner launch page waits for company setup,
// then for the agent to finish, then for the first deployment, and opens the project once the
// person deployed it with `platform deploy`. App ids that are malformed or another person's are
// refused with their codes.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCredentials } from '../../src/auth/agent-credentials.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { createServiceLogger } from '../../src/observability/logger.ts';
import {
  type OnboardingRequest,
  OnboardingRequests,
} from '../../src/onboarding/onboarding-requests.ts';
import { deployedProject } from '../../src/serve/serve-onboarding.ts';
import { loadServeSettings } from '../../src/serve/serve-settings.ts';
import { type RunningService, startServe } from '../../src/serve/start-serve.ts';
import { writeFiles } from '../helpers/broker.ts';
import { launchChromium, openPage } from '../helpers/chromium.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  adaId,
  cli,
  freePort,
  issueAccountCredential,
  keepCredential,
  setUpAdministrator,
  WHOAMI_MANIFEST,
  WHOAMI_SOURCE,
  withCentral,
} from './serve-harness.ts';

const EMAIL = 'bea@example.com';

const manifest = WHOAMI_MANIFEST;

const whoamiSource = WHOAMI_SOURCE;

type ToolAnswer = {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  content: { text?: string }[];
};

describe('onboarding on platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let service: RunningService;
  let browser: Browser;
  let agent: Client;
  let port: number;
  let base: string;
  /** The service's log lines: the project-aware email's link is never printed there. */
  const logged: string[] = [];
  /** The mail server the service sends through: the project-aware email arrives there. */
  let sink: SmtpSink;
  /** The onboarding link of the last email whose subject holds `subject`. */
  const mailedLink = (subject: string) =>
    /(http:[^\s"]+\/confirm\/onboarding\?token=[\w-]+)/.exec(
      sink.received.filter((email) => email.subject.includes(subject)).at(-1)?.text ?? '',
    )?.[1];

  const onboard = async (args: Record<string, unknown>) =>
    (await agent.callTool({
      name: 'start_onboarding',
      arguments: { appId: 'notes', email: EMAIL, ...args },
    })) as ToolAnswer;

  const deploy = (app: string) =>
    cli(secrets.env, ['deploy', join(dir.path, app), '--to', base, '--app', app]);

  beforeAll(async () => {
    [postgres, secrets, dir, browser, sink] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-onboarding-'),
      launchChromium(),
      startSmtpSink('mailer', 'mail password'),
    ]);
    const passwordFile = join(dir.path, 'smtp-password');
    await writeFile(passwordFile, 'mail password');
    await chmod(passwordFile, 0o600);
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
        PLATFORM_ORGANISATION: 'Acme',
        PLATFORM_DRAIN_SECONDS: '5',
        PLATFORM_SMTP_URL: `smtp://mailer@127.0.0.1:${sink.port}`,
        PLATFORM_SMTP_PASSWORD_FILE: passwordFile,
      },
      cwd: dir.path,
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    let key = '';
    service = await startServe({
      settings: loaded.settings,
      logger: createServiceLogger({
        level: 'info',
        destination: { write: (line: string) => logged.push(line) },
      }),
      announce: (line) => {
        key = /key=([A-Za-z0-9_-]+)/.exec(line)?.[1] ?? key;
      },
    });
    expect((await setUpAdministrator(base, key)).status).toBe(200);
    expect(
      await keepCredential(secrets.env, dir.path, base, await adaCredential(postgres.url)),
    ).toBe(0);
    for (const app of ['todo', 'notes']) {
      await writeFiles(join(dir.path, app), {
        'platform.yaml': manifest,
        'functions/whoami/index.ts': whoamiSource,
        'public/index.html': `<h1 id="${app}">${app}</h1>`,
      });
    }
    // The administrator's app: its id is taken.
    const todo = await deploy('todo');
    expect(todo.err).toBe('');
    expect(todo.code).toBe(0);
    // The agent acts for the administrator on todo with a credential of its own.
    const credential = await withCentral(
      postgres.url,
      async (central) =>
        (
          await new AgentCredentials(central, systemClock).issue(
            await adaId(central),
            'todo',
            'test agent',
          )
        ).token,
    );
    agent = new Client({ name: 'coding-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${credential}` } },
      }),
    );
  }, 150_000);

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await service?.drain();
    await browser?.close();
    await Promise.all([postgres?.stop(), secrets?.stop(), sink?.close()]);
    await dir?.remove();
  });

  it('refuses an app id that is malformed or another person’s, and a caller it does not know', async () => {
    const malformed = await onboard({ appId: 'Not_An_Id' });
    expect(malformed.isError).toBe(true);
    expect(malformed.content[0]?.text).toMatch(/^INVALID_INPUT: "Not_An_Id" is not an app id/);
    const deployed = await onboard({ appId: 'todo' });
    expect(deployed.isError).toBe(true);
    expect(deployed.content[0]?.text).toMatch(/^APP_ID_TAKEN/);
    // Nothing was made for them.
    expect(sink.received.map((email) => email.text).join('\n')).not.toContain(
      '/confirm/onboarding',
    );

    // An app created while a request was ready: the agent's finish is refused, nothing changes.
    await withCentral(postgres.url, async (central) => {
      const project = deployedProject({
        central,
        baseUrl: base,
        baseDomain: 'localhost',
        organisation: 'Acme',
        requests: () => new OnboardingRequests(central, systemClock),
      });
      const ready: OnboardingRequest = {
        id: 'onb_test',
        appId: 'todo',
        email: 'late@example.com',
        accountId: '00000000-0000-4000-8000-000000000001',
        kind: 'new',
        state: 'ready',
        confirmed: true,
        companySetUp: true,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      };
      await expect(central.transaction((tx) => project.claim(ready, tx))).rejects.toMatchObject({
        code: 'APP_ID_TAKEN',
      });
      const { rows } = await central.query<{ owner: string }>(
        "SELECT owner_account_id::text AS owner FROM platform.apps WHERE app_id = 'todo'",
      );
      expect(rows[0]?.owner).toBe(await adaId(central));
    });

    const anonymous = await fetch(`${base}/v1/apps/notes/onboarding`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL }),
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe(
      'AUTH_REQUIRED',
    );
  }, 30_000);

  it('runs from start_onboarding to the project opened after its first deployment', async () => {
    const started = await onboard({});
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ state: 'organisation_setup_required' });
    const { requestId, claimSecret } = started.structuredContent as {
      requestId: string;
      claimSecret: string;
    };
    // The project's app id is held for this person while the request lives.
    const other = await onboard({ email: 'cid@example.com' });
    expect(other.content[0]?.text).toMatch(/^APP_ID_TAKEN/);
    // No app and no credential yet.
    expect((await onboard({ requestId, claimSecret })).structuredContent).toEqual({
      requestId,
      state: 'organisation_setup_required',
      expiresAt: started.structuredContent?.expiresAt,
    });

    const link = mailedLink('Confirm your email to start notes');
    expect(link).toBeDefined();
    expect(logged.join('\n')).not.toContain(link);
    expect(new URL(link as string).origin).toBe(base);
    const page: Page = await openPage(browser);
    await page.goto(link as string);
    await page.click('#confirm');
    await page.waitForURL(`${base}/_platform/auth/onboarding/${requestId}`);

    // Before company setup.
    await page.waitForSelector('#state[data-state="organisation_setup_required"]');
    expect(await page.isVisible('#set-up-company')).toBe(true);
    // Company setup in a separate tab: the service's organisation invites the person.
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.click('#set-up-company'),
    ]);
    await tab.waitForSelector('#accept');
    expect(await tab.textContent('body')).toContain('Acme');
    await tab.click('#accept');
    await tab.waitForSelector('#company-done');
    await tab.close();

    // After company setup: ready for the agent to finish.
    await page.waitForSelector('#state[data-state="ready"]');
    expect(await page.isVisible('#set-up-company')).toBe(false);
    const finished = await onboard({ requestId, claimSecret });
    const answer = finished.structuredContent ?? {};
    expect(answer.state).toBe('finished');
    const agentCredential = (answer.agentCredential as { token: string }).token;
    expect(agentCredential).toMatch(/^plat_agent_/);

    // Finished, but nothing is deployed: the page waits for the first deployment.
    await page.waitForSelector('#state[data-state="deploying"]');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(page.url()).toBe(`${base}/_platform/auth/onboarding/${requestId}`);

    // The person deploys the project, as its owner, with their own platform login.
    const beaToken = await withCentral(postgres.url, async (central) => {
      const { rows } = await central.query<{ id: string }>(
        'SELECT id::text FROM platform.accounts WHERE email = $1',
        [EMAIL],
      );
      return issueAccountCredential(central, rows[0]?.id as string, 'bea CLI');
    });
    expect(await keepCredential(secrets.env, dir.path, base, beaToken)).toBe(0);
    const deployed = await deploy('notes');
    expect(deployed.err).toBe('');
    expect(deployed.code).toBe(0);

    // After the deployment the launch page opens the project, signed in.
    await page.waitForURL(`http://notes.localhost:${port}/`, { timeout: 20_000 });
    await page.waitForSelector('#notes');
    const who = await page.evaluate(async () => (await fetch('/api/whoami')).json());
    expect(who).toEqual({ result: { user: expect.any(String) } });
    await page.context().close();
    // The agent's credential acts on the project, through {base_url}'s owner API.
    const jobs = await fetch(`${base}/v1/apps/notes/jobs`, {
      headers: { authorization: `Bearer ${agentCredential}` },
    });
    expect(jobs.status).toBe(200);
  }, 120_000);

  it('has an existing account outside the organisation approve, then join it before the finish', async () => {
    const dan = { appId: 'desk', email: 'dan@example.com' };
    // A first request makes dan's provisional identity; a second finds an existing account.
    expect((await onboard(dan)).structuredContent?.state).toBe('organisation_setup_required');
    const approval = await onboard(dan);
    expect(approval.structuredContent?.state).toBe('approval_required');
    const { requestId, claimSecret } = approval.structuredContent as {
      requestId: string;
      claimSecret: string;
    };
    const link = mailedLink('Approve a coding agent for desk');
    expect(link).toBeDefined();

    const page = await openPage(browser);
    await page.goto(link as string);
    await page.click('#confirm');
    await page.waitForURL(`${base}/_platform/auth/onboarding/${requestId}`);
    // Approved, but no member yet: the project waits for the organisation's invitation.
    await page.waitForSelector('#state[data-state="organisation_setup_required"]');
    expect((await onboard({ ...dan, requestId, claimSecret })).structuredContent?.state).toBe(
      'organisation_setup_required',
    );
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.click('#set-up-company'),
    ]);
    await tab.click('#accept');
    await tab.waitForSelector('#company-done');
    await tab.close();
    await page.waitForSelector('#state[data-state="ready"]');
    const finished = await onboard({ ...dan, requestId, claimSecret });
    expect(finished.structuredContent?.state).toBe('finished');
    const role = await withCentral(postgres.url, async (central) => {
      const { rows } = await central.query<{ role: string }>(
        `SELECT m.role FROM platform.memberships m
           JOIN platform.accounts a ON a.id = m.account_id WHERE a.email = $1`,
        [dan.email],
      );
      return rows[0]?.role;
    });
    expect(role).toBe('member');
    await page.context().close();
  }, 60_000);
});
