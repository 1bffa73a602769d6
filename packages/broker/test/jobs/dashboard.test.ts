// The dashboard's Background jobs section in a real headless Chromium (Debian's, installed by
// scripts/setup-system.sh), against a real broker on loopback with a controlled clock.
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { JobSummary } from '../../src/jobs/job-summary.ts';
import { anonymousCaller } from '../../src/kernel/caller.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { brokerFor } from '../helpers/broker.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { openTestCentral } from '../helpers/db.ts';
import { queue } from './engine-helpers.ts';

const START = Date.parse('2025-01-15T08:00:00.000Z');
const COUNT = 57;
const resultsDir = fileURLToPath(new URL('../../../../test-results/', import.meta.url));

let env: Awaited<ReturnType<typeof brokerFor>>;
let central: Database;
let browser: Browser;
let page: Page;
const ids: string[] = [];
// What each job is made into, so the test knows the totals without asking the broker.
const expected = { created: COUNT, retried: 0, succeeded: 0, failed: 0, depth: 0 };

function fate(i: number): { state: string; attempt: number } {
  if (i % 3 === 0) return { state: 'succeeded', attempt: i % 9 === 0 ? 2 : 1 };
  if (i % 3 === 1 && i < 30) return { state: 'dead_lettered', attempt: 3 };
  if (i === 2) return { state: 'running', attempt: 2 };
  if (i === 5) return { state: 'retry_wait', attempt: 1 };
  return { state: 'queued', attempt: 0 };
}

beforeAll(async () => {
  const clock = new ManualClock(START);
  // The organisation's store: the dashboard shows the organisation the app belongs to.
  central = await openTestCentral();
  env = await brokerFor(
    {},
    {
      central,
      // A second app of the organisation: the console's header switches to it.
      auth: {
        peers: () => [
          { appId: env.broker.appId, url: env.broker.server.url },
          { appId: 'billing', url: 'http://127.0.0.1:9' },
        ],
      },
      jobs: {
        queues: [
          queue('emails', 'sendEmail', { concurrency: 4, maxAttempts: 5, retryBackoff: true }),
          queue('reports', 'buildReport'),
        ],
        cron: [
          {
            name: 'nightly',
            schedule: '30 2 * * *',
            function: 'buildReport',
            enabled: true,
            timezone: 'Europe/Berlin',
          },
          { name: 'off', schedule: '0 * * * *', function: 'x', enabled: false, timezone: 'UTC' },
        ],
        clock,
        run: false,
      },
    },
  );
  const service = env.broker.jobs.service;
  for (let i = 0; i < COUNT; i++) {
    clock.set(START + i * 60_000);
    const { job } = await service.enqueue(i % 2 === 0 ? 'emails' : 'reports', {
      payload: { secretPayload: `p-${i}` },
      idempotencyKey: `secret-key-${i}`,
    });
    ids.push(job.id);
    const { state, attempt } = fate(i);
    if (state === 'succeeded') expected.succeeded++;
    if (state === 'dead_lettered') expected.failed++;
    if (attempt > 1 || state === 'retry_wait') expected.retried++;
    if (!['succeeded', 'dead_lettered'].includes(state)) expected.depth++;
    const error =
      state === 'dead_lettered'
        ? JSON.stringify({ code: 'BOOM', message: 'no', status: 500 })
        : null;
    await env.broker.db.query(
      `UPDATE platform.jobs SET state = $2, attempt = $3, last_error = $4::jsonb,
         finished_at = CASE WHEN $2 IN ('succeeded', 'dead_lettered') THEN created_at END WHERE id = $1`,
      [job.id, state, attempt, error],
    );
  }
  browser = await launchChromium();
  // Berlin is UTC+1 in January: the page must turn its local times into +01:00 instants.
  const context = await browser.newContext({
    timezoneId: 'Europe/Berlin',
    viewport: { width: 1400, height: 1000 },
  });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await env?.cleanup();
  await central?.close();
});

const text = async (selector: string) => ((await page.textContent(selector)) ?? '').trim();
const rows = () => page.locator('#history tbody tr').count();
// Predicates are functions with arguments: the page's CSP forbids evaluating strings.
const waitText = (id: string, value: string) =>
  page.waitForFunction(([i, v]) => document.getElementById(i)?.textContent === v, [
    id,
    value,
  ] as const);
const waitRows = (n: number) =>
  page.waitForFunction((k) => document.querySelectorAll('#history tbody tr').length === k, n);
const firstJob = () => text('#history tbody tr:first-child td:nth-child(2)');

describe('the jobs dashboard in Chromium', { timeout: 60_000 }, () => {
  it('shows totals, depth, queue policy and cron schedules', async () => {
    // One manual run, so the cron table has a last run.
    const trigger = await env.broker.app.request(`/v1/apps/${env.broker.appId}/cron/nightly/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(trigger.status).toBe(202);
    await page.goto(`${env.broker.server.url}/_platform/dashboard#jobs`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await text('#total-created')).toBe(String(expected.created));
    expect(await text('#total-retried')).toBe(String(expected.retried));
    expect(await text('#total-succeeded')).toBe(String(expected.succeeded));
    expect(await text('#total-failed')).toBe(String(expected.failed));
    expect(await text('#depth-total')).toBe(String(expected.depth));
    const emails = await page.locator('#queues tbody tr:first-child td').allTextContents();
    expect(emails).toEqual([
      'emails',
      'sendEmail',
      '4',
      '5',
      '10 s',
      'yes',
      '60 s',
      '13',
      '0',
      '1',
    ]);
    const nightly = await page.locator('#cron tbody tr:first-child td').allTextContents();
    // The clock stands at 08:56Z (09:56 in Berlin); the next 02:30 Berlin is the 16th.
    expect(nightly).toEqual([
      'nightly',
      '30 2 * * *',
      'Europe/Berlin',
      'buildReport',
      'yes',
      '2025-01-15 09:56:00 (manual)',
      'queued',
      '2025-01-16 02:30:00',
      'Run now',
    ]);
    const off = await page.locator('#cron tbody tr:nth-child(2) td').allTextContents();
    expect(off.slice(4)).toEqual(['no', 'never', '', 'disabled', 'Run now']);
    const html = await page.content();
    expect(html).not.toContain('secret-key');
    expect(html).not.toContain('secretPayload');
  });

  it('shows the Agent Feed agents read: the signals of the last hour and the failure alert', async () => {
    expect(await text('#feed-created')).toBe(String(expected.created));
    expect(await text('#feed-retried')).toBe(String(expected.retried));
    expect(await text('#feed-succeeded')).toBe(String(expected.succeeded));
    expect(await text('#feed-failed')).toBe(String(expected.failed));
    expect(await text('#feed-active')).toBe(String(expected.depth));
    // The last job failed for good at 08:28Z; the clock stands at 08:56Z, past the alert's window.
    expect(await text('#feed-alert')).toBe(
      'No background job failed for good in the last 15 minutes.',
    );
    expect(await page.locator('#feed-failures tbody tr').count()).toBe(expected.failed);
  });

  it('pages through the history with Previous and Next, 25 rows by default', async () => {
    expect(await rows()).toBe(25);
    expect(await text('#page')).toBe('Page 1');
    expect(await firstJob()).toBe(ids[COUNT - 1]); // newest first
    expect(await page.isDisabled('#prev')).toBe(true);
    await page.click('#next');
    await waitText('page', 'Page 2');
    const second = await firstJob();
    expect(second).toBe(ids[COUNT - 26]);
    await page.click('#next');
    await waitText('page', 'Page 3');
    expect(await rows()).toBe(COUNT - 50);
    expect(await page.isDisabled('#next')).toBe(true);
    await page.click('#prev');
    await waitText('page', 'Page 2');
    expect(await firstJob()).toBe(second);
    await page.click('#prev');
    await waitText('page', 'Page 1');
    expect(await firstJob()).toBe(ids[COUNT - 1]);
  });

  it('changes the page size to 10, 50 and 100 rows', async () => {
    await page.selectOption('#page-size', '10');
    await waitRows(10);
    for (let n = 2; n <= 6; n++) {
      await page.click('#next');
      await waitText('page', `Page ${n}`);
    }
    expect(await rows()).toBe(7);
    expect(await page.isDisabled('#next')).toBe(true);
    await page.selectOption('#page-size', '50');
    await waitText('page', 'Page 1');
    expect(await rows()).toBe(50);
    await page.selectOption('#page-size', '100');
    await waitRows(COUNT);
    expect(await page.isDisabled('#next')).toBe(true);
  });

  it('filters by inclusive Created from / Created to in the browser local time', async () => {
    await page.selectOption('#page-size', '25');
    // 09:10 to 09:19 in Berlin are jobs 10..19 (created at 08:10Z..08:19Z); "to" includes 09:19.
    await page.fill('#filter-from', '2025-01-15T09:10');
    await page.fill('#filter-to', '2025-01-15T09:19');
    await page.click('#apply');
    await waitRows(10);
    // Totals, range and history render from separate answers: wait for each, never read once.
    await waitText(
      'range',
      'Created from 2025-01-15T09:10:00.000+01:00 to 2025-01-15T09:19:59.999+01:00 (inclusive).',
    );
    expect(await firstJob()).toBe(ids[19]);
    expect(await text('#history tbody tr:first-child td:first-child')).toBe('2025-01-15 09:19:00');
    expect(await text('#history tbody tr:last-child td:nth-child(2)')).toBe(ids[10]);
    // Totals follow the range: jobs 10..19.
    const fates = Array.from({ length: 10 }, (_, k) => fate(10 + k));
    await waitText('total-created', '10');
    expect(await text('#total-succeeded')).toBe(
      String(fates.filter((f) => f.state === 'succeeded').length),
    );
    expect(await text('#total-failed')).toBe(
      String(fates.filter((f) => f.state === 'dead_lettered').length),
    );
    // The same range through the API answers the same totals.
    const summary = (await (
      await env.broker.app.request(
        `/v1/apps/${env.broker.appId}/jobs/summary?from=${encodeURIComponent('2025-01-15T09:10:00.000+01:00')}&to=${encodeURIComponent('2025-01-15T09:19:59.999+01:00')}`,
      )
    ).json()) as JobSummary;
    expect(summary.totals.created).toBe(10);
    await mkdir(resultsDir, { recursive: true });
    await page.screenshot({ path: `${resultsDir}jobs-dashboard.png`, fullPage: true });
    // State filter and Clear.
    await page.selectOption('#filter-state', 'dead_lettered');
    await page.click('#apply');
    await waitRows(4);
    await page.click('#clear');
    await waitText('total-created', String(COUNT));
    await waitRows(25);
  });

  it('lists recent AI calls: Function, kind, duration and outcome, never the prompt or output', async () => {
    const grant = {
      requestId: 'req_dash',
      functionName: 'suggestTitle',
      caller: anonymousCaller,
      sdkVersion: '2.6.0',
      secrets: [],
      emailAliases: [],
    };
    const { text: output } = await env.broker.ai.generateText(
      { prompt: 'secret plans' },
      { grant },
    );
    await env.broker.ai.generateText({ prompt: ' ' }, { grant }).catch(() => undefined);
    // Another fragment alone would not load the page again.
    await page.goto('about:blank');
    await page.goto(`${env.broker.server.url}/_platform/dashboard#ai`);
    await page.waitForSelector('body[data-ready="true"]');
    const cells = async (n: number) =>
      (await page.locator(`#ai-calls tbody tr:nth-child(${n}) td`).allTextContents()).slice(1);
    expect(await cells(1)).toEqual([
      'suggestTitle',
      'generateText',
      expect.stringMatching(/^[\d.]+ ms$/),
      'AI_INPUT_INVALID',
    ]);
    expect(await cells(2)).toEqual(['suggestTitle', 'generateText', expect.any(String), 'ok']);
    const html = await page.content();
    expect(html).not.toContain('secret plans');
    expect(html).not.toContain(output);
  });

  it('shows the organisation the app belongs to: its apps and members', async () => {
    // Another fragment alone would not load the page again.
    await page.goto('about:blank');
    await page.goto(`${env.broker.server.url}/_platform/dashboard#organisation`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.isVisible('#org-section')).toBe(true);
    expect(await page.locator('#org-apps tbody td').allTextContents()).toEqual([
      env.broker.appId,
      env.broker.server.url,
      'billing',
      'http://127.0.0.1:9',
    ]);
    // The header links to each app's console, this one marked current.
    const apps = page.locator('#console-apps a');
    expect(await apps.allTextContents()).toEqual([env.broker.appId, 'billing']);
    expect(await apps.nth(1).getAttribute('href')).toBe('http://127.0.0.1:9/_platform/dashboard');
    expect(await apps.nth(0).getAttribute('aria-current')).toBe('page');
    expect(await page.locator('#org-members tbody td').allTextContents()).toEqual([
      'owner@localhost',
      'administrator',
    ]);
  });
});
