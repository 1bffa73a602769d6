// Agent-driven onboarding (spec 5.2) end to end: an agent calls start_onboarding over MCP, the
// person confirms the project-aware email in Chromium, sets up the company in a separate tab,
// the agent finishes and gets its credential, and the launch page opens the project.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { launchChromium, openPage, sessionCookie } from '../helpers/chromium.ts';
import { copyExample, devFor } from './helpers.ts';

const EMAIL = 'newbie@example.com';
let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let browser: Browser;
let agent: Client;

type Answer = { structuredContent?: Record<string, unknown>; isError?: boolean };
const onboard = async (args: Record<string, unknown>) =>
  (
    (await agent.callTool({
      name: 'start_onboarding',
      arguments: { appId: dev.broker.appId, email: EMAIL, ...args },
    })) as Answer
  ).structuredContent ?? {};

beforeAll(async () => {
  app = await copyExample('private-notes');
  ({ dev } = await devFor(app.path, { watch: false, inMemory: true }, 'sign-in'));
  browser = await launchChromium();
  agent = new Client({ name: 'coding-agent', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${dev.url}/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${dev.devToken}` } },
    }),
  );
}, 180_000);

afterAll(async () => {
  await agent?.close().catch(() => {});
  await browser?.close();
  await dev?.close();
  await app?.remove();
});

describe('onboarding started by a coding agent', { timeout: 120_000 }, () => {
  it('runs from start_onboarding to the opened project', async () => {
    const started = await onboard({});
    expect(started).toMatchObject({ state: 'organisation_setup_required' });
    const { requestId, claimSecret } = started as { requestId: string; claimSecret: string };
    // No app and no credential yet: returning early only answers the state.
    const early = await onboard({ requestId, claimSecret });
    expect(early).toEqual({
      requestId,
      state: 'organisation_setup_required',
      expiresAt: started.expiresAt,
    });

    const [mail] = (await dev.broker.outbox.list()).filter((m) => m.to.includes(EMAIL));
    expect(mail?.subject).toBe(`Confirm your email to start ${dev.broker.appId}`);
    const link = /(http:\S+\/confirm\/onboarding\?token=\S+)/.exec(mail?.text ?? '')?.[1] as string;

    const page = await openPage(browser);
    await page.goto(link);
    // The review page approves nothing by itself.
    expect((await dev.broker.auth.account(EMAIL))?.state).toBe('unconfirmed');
    await page.click('#confirm');
    await page.waitForURL(`**/_platform/auth/onboarding/${requestId}`);
    expect(await sessionCookie(page)).toBeDefined();
    expect((await dev.broker.auth.account(EMAIL))?.state).toBe('confirmed');
    await page.waitForSelector('#state[data-state="organisation_setup_required"]');

    // Company setup opens in a separate tab.
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.click('#set-up-company'),
    ]);
    await tab.waitForSelector('#name');
    await tab.fill('#name', 'Newbie Ltd');
    await tab.click('#create-company');
    await tab.waitForSelector('#company-done');
    await tab.close();
    await page.waitForSelector('#state[data-state="ready"]');

    // The person asks the agent to finish: it gets its own credential, once.
    const finished = await onboard({ requestId, claimSecret });
    const credential = (finished.agentCredential as { token: string }).token;
    expect(finished.state).toBe('finished');
    expect(credential).toMatch(/^plat_agent_[\w-]{43}$/);
    const again = (await agent.callTool({
      name: 'start_onboarding',
      arguments: { appId: dev.broker.appId, email: EMAIL, requestId, claimSecret },
    })) as { isError?: boolean; content: { text?: string }[] };
    expect(again.isError).toBe(true);
    expect(again.content[0]?.text).toMatch(/^ONBOARDING_REQUEST_EXPIRED/);

    // The launch page opens the project, which the person may now open.
    await page.waitForURL(`${dev.url}/`);
    expect(await page.content()).not.toContain('Sign in');
    const jobs = await fetch(`${dev.url}/v1/apps/${dev.broker.appId}/jobs`, {
      headers: { authorization: `Bearer ${credential}` },
    });
    expect(jobs.status).toBe(200);
    // The agent never got the browser session.
    expect(JSON.stringify(finished)).not.toContain((await sessionCookie(page)) ?? '-');
  });
});
