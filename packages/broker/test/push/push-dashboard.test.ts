// The dashboard shows what the local push service received, in a real headless Chromium.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';
import { launchChromium, openPage } from '../helpers/chromium.ts';

const ADA = '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d';

let env: Awaited<ReturnType<typeof brokerFor>>;
let browser: Browser;
beforeAll(async () => {
  env = await brokerFor({});
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await env?.cleanup();
});

describe('the dashboard', () => {
  it('lists delivered notifications, decrypted, newest first', async () => {
    await env.broker.push.subscribeLocal(ADA);
    await env.broker.push.send({ to: ADA, title: 'First', body: 'one' });
    await env.broker.push.send({
      to: ADA,
      title: 'Milk',
      body: 'Buy milk',
      url: '/t/1',
      tag: 't1',
    });
    const page = await openPage(browser);
    await page.goto(`${env.broker.server.url}/_platform/dashboard#push`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#push tbody tr').count()).toBe(2);
    const cells = await page.locator('#push tbody tr:first-child td').allTextContents();
    expect(cells.slice(1)).toEqual([ADA, 'Milk', 'Buy milk', '/t/1', 't1']);
    expect(await page.locator('#push tbody tr:nth-child(2) td:nth-child(3)').textContent()).toBe(
      'First',
    );
  });
});
