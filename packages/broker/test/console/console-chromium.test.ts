// The app console in a real headless Chromium against a real broker with sign-in: the owner
// signs in by email link, moves through the sections with the keyboard, runs a Function and
// sees its lines arrive live in Logs, makes an app access token in Access and uses it, and
// takes a backup in Backups and restores it behind a typed confirmation, and every section
// passes axe-core. Every response the browser received is searched for the
// values the test planted (a secret, a job payload, the dev token, the made token).
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountBrokerApi } from '../../src/api/dev-api.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { dashboardLinkKey } from '../../src/project/dev-state.ts';
import { authBroker, latestLinkToken } from '../auth/helpers.ts';
import { expectAccessiblePanel } from '../helpers/axe.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { queue } from '../jobs/engine-helpers.ts';

const OWNER = 'owner@localhost';
const SECRET = 'sk-planted-secret-7f3a91c2';
const PAYLOAD = 'planted-job-payload-5521';
const USER = '6f1c1c6e-8f7d-4c8e-9a7b-1d2e3f405162';
const OTHER = '0b7e2a4c-1d3f-4e5a-8b6c-7d8e9f0a1b2c';
const DEV_TOKEN = 'dev-token-planted-00112233445566778899';
const FILE_CONTENTS = 'planted-file-contents-9931';
const shots = fileURLToPath(new URL('../../../../test-results/console/', import.meta.url));

const files = {
  '.platform/secrets.json': JSON.stringify({ API_KEY: SECRET }),
  'migrations/001_notes.sql': `
create table notes (id uuid primary key default gen_random_uuid(), owner_id uuid not null default auth.uid(), body text);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`,
  'functions/hello/hello.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ name: s.string() }),
  handler: async (ctx) => {
    const key = await ctx.secrets.require('API_KEY');
    ctx.log.info('greeting ' + ctx.input.name, { key });
    ctx.log.warn('almost done');
    return { greeting: 'hello ' + ctx.input.name };
  },
});
`,
  'migrations/002_gate.sql': 'create table gate (id uuid primary key default gen_random_uuid());',
  'functions/gated/gated.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => {
    const open = await ctx.data.table('gate').list({});
    if (open.length === 0) throw new Error('the gate is closed');
    return { passed: true };
  },
});
`,
  'functions/who/who.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => ({ user: ctx.user }),
});
`,
};

let env: Awaited<ReturnType<typeof authBroker>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let url: string;
// Every response body the console's browser received, by URL.
const seen: { url: string; body: string }[] = [];

beforeAll(async () => {
  env = await authBroker({
    files,
    auth: { devToken: DEV_TOKEN },
    jobs: {
      queues: [queue('greetings', 'hello'), queue('gated', 'gated', { maxAttempts: 1 })],
      cron: [
        { name: 'tick', schedule: '0 0 1 1 *', function: 'gated', enabled: true, timezone: 'UTC' },
      ],
    },
    broker: {
      declared: { secrets: ['API_KEY'], searches: {}, emailAliases: [] },
      mount: (app, services) =>
        mountBrokerApi(app, { appId: 'notes', invoker: services.invoker, devToken: DEV_TOKEN }),
    },
  });
  url = env.broker.server.url;
  await env.broker.addFunction({
    name: 'hello',
    entrypoint: 'functions/hello/hello.ts',
    access: 'user',
  });
  await env.broker.addFunction({
    name: 'gated',
    entrypoint: 'functions/gated/gated.ts',
    access: 'system',
  });
  await env.broker.addFunction({ name: 'who', entrypoint: 'functions/who/who.ts', access: 'user' });
  for (const [owner, body] of [
    [USER, 'the user note'],
    [OTHER, 'another user note'],
  ]) {
    await env.broker.db.query('insert into notes (owner_id, body) values ($1, $2)', [owner, body]);
  }
  await env.broker.jobs.service.enqueue('greetings', {
    payload: { name: PAYLOAD },
    idempotencyKey: 'k1',
  });
  await env.broker.files.upload(userCaller(USER), {
    data: Buffer.from(FILE_CONTENTS),
    name: 'report.txt',
    contentType: 'text/plain',
  });
  await mkdir(shots, { recursive: true });
  browser = await launchChromium();
  // axe-core is injected as a script: the test's context lets it past the page's CSP.
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, bypassCSP: true });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('response', async (response) => {
    try {
      seen.push({ url: response.url(), body: await response.text() });
    } catch {
      // A redirect or an event stream has no body to read here.
    }
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await env?.cleanup();
});

const panel = (group: string) => page.locator(`#panel-${group}`);

const axe = (group: string) => expectAccessiblePanel(page, group);

describe('the app console in Chromium', { timeout: 90_000 }, () => {
  it('sends a browser without a session to sign-in, and shows the owner the Overview', async () => {
    await page.goto(`${url}/_platform/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/_platform/auth/sign-in');
    await page.fill('#email', OWNER);
    await page.click('#email-link');
    await page.waitForSelector('text=Check your email');
    const token = await latestLinkToken(env.broker, OWNER);
    const mail = await context.browser()?.newPage();
    if (!mail) throw new Error('no second page');
    await mail.goto(`${url}/_platform/auth/confirm?token=${token}`);
    await mail.click('#confirm');
    await mail.waitForSelector('#done');
    await mail.context().close();
    await page.waitForURL(`${url}/_platform/dashboard`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await panel('overview').isVisible()).toBe(true);
    expect(await panel('logs').isVisible()).toBe(false);
    expect(await page.textContent('#ov-functions')).toBe('3');
  });

  it('moves between sections with the keyboard alone', async () => {
    await page.focus('#nav-overview a');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.body.dataset.group === 'logs');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('panel-logs');
    expect(await page.getAttribute('#nav-logs a', 'aria-current')).toBe('page');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.goto(`${url}/_platform/dashboard#jobs`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await panel('jobs').isVisible()).toBe(true);
  });

  it('runs a Function from Functions, and its lines arrive live in Logs', async () => {
    await page.goto(`${url}/_platform/dashboard#logs`);
    await page.waitForSelector('body[data-log-tail="open"]');
    await page.click('#nav-functions a');
    await page.waitForSelector('#fn-list td:text-is("hello")');
    await page.selectOption('#fn-name', 'hello');
    await page.fill('#fn-user', USER);
    await page.fill('#fn-input', '{"name":"console"}');
    await page.click('#fn-run-button');
    await page.waitForFunction(() => Boolean(document.body.dataset.lastRun));
    expect(await page.textContent('#fn-output')).toContain('hello console');
    expect(await page.textContent('#fn-duration')).toMatch(/Succeeded in \d+ ms/);
    const runLogs = (await page.textContent('#fn-logs')) ?? '';
    expect(runLogs).toContain('INFO greeting console');
    expect(runLogs).toContain('[REDACTED]');
    const requestId = await page.evaluate(() => document.body.dataset.lastRun);
    // The Logs panel was opened before the call and not reloaded: the tail brought the lines.
    await page.click('#nav-logs a');
    const line = page.locator('#log-lines tr', { hasText: 'greeting console' });
    await line.waitFor();
    expect(await line.textContent()).toContain('hello');
    expect(await line.textContent()).toContain('[REDACTED]');
    const request = page.locator('#log-lines tr.line-request', { hasText: '/invoke/hello' });
    await request.waitFor();
    expect(await request.textContent()).toContain(requestId);
    // A request id narrows the list to that request's lines.
    await request.locator('button').click();
    await page.waitForFunction(() => document.querySelectorAll('#log-lines tbody tr').length === 3);
    await page.selectOption('#log-level', 'warn');
    await page.click('#log-apply');
    await page.waitForFunction(() => document.querySelectorAll('#log-lines tbody tr').length === 1);
    expect(await page.textContent('#log-lines tbody')).toContain('almost done');
    await page.screenshot({ path: `${shots}logs.png`, fullPage: true });
  });

  it('browses a table as the owner, and "view as user" hides another user\'s rows', async () => {
    await page.click('#nav-data a');
    await page.click('button[aria-label="Browse table notes"]');
    await page.waitForFunction(() => document.body.dataset.dataView === 'owner:0');
    const all = (await page.textContent('#data-rows tbody')) ?? '';
    expect(all).toContain('the user note');
    expect(all).toContain('another user note');
    expect(await page.textContent('#data-policies')).toContain('notes_owner');
    expect(await page.textContent('#data-policies')).toContain('(owner_id = auth.uid())');
    await page.fill('#data-as-user', USER);
    await page.click('#data-apply');
    await page.waitForFunction((u) => document.body.dataset.dataView === `user:${u}`, USER);
    const seenByUser = (await page.textContent('#data-rows tbody')) ?? '';
    expect(seenByUser).toContain('the user note');
    expect(seenByUser).not.toContain('another user note');
    await page.screenshot({ path: `${shots}data-as-user.png`, fullPage: true });
  });

  let made = '';
  it('makes an app access token in Access that works once revealed, and never shows it again', async () => {
    await page.goto(`${url}/_platform/dashboard#access`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.fill('#token-name', 'ci');
    await page.click('#token-create-button');
    await page.waitForSelector('#token-reveal:not([hidden])');
    const revealUrl = (await page.getAttribute('#token-reveal-link', 'href')) ?? '';
    expect(revealUrl).toContain('/reveal?secret=');
    await page.waitForSelector('#tokens td:text-is("awaiting_reveal")');
    await page.click('#token-reveal-link');
    await page.click('#reveal');
    made = (await page.textContent('#token')) ?? '';
    expect(made).toMatch(/^plat_app_[\w-]{43}$/);
    const who = await fetch(`${url}/_platform/api/functions/who`, {
      method: 'POST',
      headers: { authorization: `Bearer ${made}` },
    });
    expect(who.status).toBe(200);
    // Spent: the link answers 410, and Access lists the token by its first characters only.
    expect((await page.goto(revealUrl))?.status()).toBe(410);
    await page.goto(`${url}/_platform/dashboard#access`);
    await page.waitForSelector('#tokens td:text-is("active")');
    const listed = (await page.textContent('#tokens')) ?? '';
    expect(listed).toContain(`${made.slice(0, 13)}…`);
    expect(listed).not.toContain(made);
    await page.screenshot({ path: `${shots}access.png`, fullPage: true });
  });

  it('revokes a token from Access after a confirmation', async () => {
    page.once('dialog', (dialog) => dialog.accept());
    await page.click('#tokens button[aria-label="Revoke ci"]');
    await page.waitForSelector('#tokens td:text-is("No app access tokens yet.")');
    const who = await fetch(`${url}/_platform/api/functions/who`, {
      method: 'POST',
      headers: { authorization: `Bearer ${made}` },
    });
    expect(who.status).toBe(401);
  });

  it('refuses a state change by cookie without the console form token', async () => {
    const status = await page.evaluate(async (path) => {
      const r = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return r.status;
    }, `/v1/apps/notes/tokens`);
    expect(status).toBe(403);
  });

  it('retries a failed job from Jobs after a confirmation, and it succeeds', async () => {
    const jobs = env.broker.jobs.service;
    const { job } = await jobs.enqueue('gated', { payload: {}, idempotencyKey: 'gate-1' });
    await expect.poll(async () => (await jobs.get(job.id)).state).toBe('dead_lettered');
    await env.broker.db.query('insert into gate default values');
    await page.goto('about:blank');
    await page.goto(`${url}/_platform/dashboard#jobs`);
    await page.waitForSelector('body[data-ready="true"]');
    const retry = page.locator(`button[aria-label="Retry job ${job.id}"]`);
    // Declining the confirmation changes nothing.
    page.once('dialog', (dialog) => dialog.dismiss());
    await retry.click();
    expect((await jobs.get(job.id)).state).toBe('dead_lettered');
    page.once('dialog', (dialog) => dialog.accept());
    await retry.click();
    await expect
      .poll(async () => {
        const now = await jobs.get(job.id);
        return `${now.state} ${JSON.stringify(now.lastError)} ${await page.textContent('#error')}`;
      })
      .toMatch(/^succeeded/);
    await page.click('#apply');
    await page.locator('#history tr', { hasText: job.id }).locator('td.state-succeeded').waitFor();
  });

  it('runs a cron schedule now from Jobs & cron', async () => {
    page.once('dialog', (dialog) => dialog.accept());
    await page.click('button[aria-label="Run now: schedule tick"]');
    await page.locator('#cron tr', { hasText: '(manual)' }).waitFor();
  });

  it("lists the app's files in Files with type, size and owner, never their contents", async () => {
    await page.goto(`${url}/_platform/dashboard#files`);
    await page.waitForSelector('body[data-ready="true"]');
    const listed = page.locator('#files tbody tr', { hasText: 'report.txt' });
    await listed.waitFor();
    const text = (await listed.textContent()) ?? '';
    expect(text).toContain('text/plain');
    expect(text).toContain(`${FILE_CONTENTS.length} B`);
    expect(text).toContain(USER);
    expect(await page.textContent('#files-count')).toBe('1 file(s)');
  });

  it('takes a backup from Backups, and restores it after the app id is typed', async () => {
    const notes = async () =>
      (
        await env.broker.db.query<{ body: string }>('select body from notes order by body')
      ).rows.map((r) => r.body);
    const before = await notes();
    await page.goto(`${url}/_platform/dashboard#backups`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('#backup-create-button');
    await page.waitForFunction(() => Boolean(document.body.dataset.lastBackup));
    const id = (await page.evaluate(() => document.body.dataset.lastBackup)) ?? '';
    expect(id).toMatch(/^bak_/);
    const listed = page.locator('#backups tr', { hasText: id });
    await listed.waitFor();
    // Taken, age, kind, size: the broker's clock is fixed, so the age is whatever it is.
    expect(await listed.textContent()).toMatch(/\d+ (s|min|h|d) agomanual[\d.]+ [KM]B/);
    // The data changes after the backup: one note rewritten, one gone, one added.
    await env.broker.db.query("update notes set body = 'rewritten' where body = 'the user note'");
    await env.broker.db.query("delete from notes where body = 'another user note'");
    await env.broker.db.query("insert into notes (owner_id, body) values ($1, 'added later')", [
      USER,
    ]);
    expect(await notes()).not.toEqual(before);
    await page.click(`button[aria-label="Restore backup ${id}"]`);
    expect(await page.textContent('#backup-restore-id')).toBe(id);
    const restore = page.locator('#backup-restore-button');
    // Anything but the app id (here the backup's own id) leaves Restore disabled, and the form
    // submitted anyway restores nothing.
    await page.fill('#backup-restore-confirm', id);
    expect(await restore.isDisabled()).toBe(true);
    await page.evaluate(() =>
      (document.getElementById('backup-restore') as HTMLFormElement).requestSubmit(),
    );
    await page.waitForFunction(() => !document.getElementById('error')?.hidden);
    expect(await page.textContent('#error')).toContain('Type the app id');
    expect(await notes()).toContain('added later');
    expect(await page.evaluate(() => document.body.dataset.lastRestore)).toBeUndefined();
    await page.fill('#backup-restore-confirm', env.broker.appId);
    expect(await restore.isEnabled()).toBe(true);
    await page.screenshot({ path: `${shots}backups-restore.png`, fullPage: true });
    await restore.click();
    await page.waitForFunction((b) => document.body.dataset.lastRestore === b, id);
    expect(await page.isHidden('#backup-restore')).toBe(true);
    expect(await page.textContent('#backup-status')).toBe(`Restored backup ${id}.`);
    expect(await notes()).toEqual(before);
  });

  it('draws the hour per minute in Jobs & cron and AI: one bar part for each count', async () => {
    await env.broker.ai.generateText(
      { prompt: 'chart me' },
      {
        grant: {
          requestId: 'req_chart',
          functionName: 'hello',
          caller: userCaller(USER),
          sdkVersion: '2.6.0',
          secrets: [],
          emailAliases: [],
        },
      },
    );
    for (const [group, chart, path, noun] of [
      ['jobs', 'jobs-chart', 'jobs/per-minute', 'jobs created'],
      ['ai', 'ai-chart', 'ai/calls/per-minute', 'AI calls'],
    ] as const) {
      await page.goto(`${url}/_platform/dashboard#${group}`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector(`#${chart} svg`);
      const { perMinute } = (await (
        await page.request.get(`${url}/v1/apps/notes/${path}`)
      ).json()) as { perMinute: Record<string, number[]> };
      const counts = Object.values(perMinute).flat();
      const total = counts.reduce((a, b) => a + b, 0);
      expect(total, group).toBeGreaterThan(0);
      const drawn = await page.evaluate((id) => {
        const svg = document.querySelector(`#${id} svg`);
        return {
          label: svg?.getAttribute('aria-label'),
          bars: svg?.querySelectorAll('rect').length,
        };
      }, chart);
      expect(drawn.label).toMatch(new RegExp(`^${total} ${noun} in the last hour, per minute: `));
      expect(drawn.bars).toBe(counts.filter((n) => n > 0).length);
      await page.screenshot({ path: `${shots}${group}-chart.png`, fullPage: true });
    }
  });

  it('passes axe-core on every section, with a screenshot of each', async () => {
    const groups = await page.$$eval('nav.sections li:not([hidden]) a', (links) =>
      links.map((a) => (a.getAttribute('href') ?? '').slice(1)),
    );
    expect(groups).toEqual(
      expect.arrayContaining([
        'overview',
        'logs',
        'functions',
        'data',
        'files',
        'jobs',
        'access',
        'backups',
      ]),
    );
    for (const group of groups) {
      await page.goto(`${url}/_platform/dashboard#${group}`);
      await page.waitForSelector('body[data-ready="true"]');
      await axe(group);
      await page.screenshot({ path: `${shots}${group}.png`, fullPage: true });
    }
  });

  it('showed no planted secret, payload or credential in any console response', async () => {
    expect(seen.length).toBeGreaterThan(20);
    expect(made).toMatch(/^plat_app_/);
    for (const { url: where, body } of seen) {
      for (const planted of [
        SECRET,
        PAYLOAD,
        DEV_TOKEN,
        dashboardLinkKey(DEV_TOKEN),
        FILE_CONTENTS,
      ]) {
        expect(body.includes(planted), `${planted} in ${where}`).toBe(false);
      }
      // The made token appears on its one reveal page and nowhere else.
      if (!where.includes('/access-tokens/reveal')) {
        expect(body.includes(made), `the token in ${where}`).toBe(false);
      }
    }
  });
});
