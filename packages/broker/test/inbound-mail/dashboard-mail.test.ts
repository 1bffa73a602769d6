// The dashboard's Email section in a real headless Chromium: sent and received mail side by side,
// against a real broker on loopback whose inbound email Function runs in Deno.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';
import { launchChromium, openPage } from '../helpers/chromium.ts';
import { inboundApp } from './inbound-app.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  env = await brokerFor(inboundApp, {
    declared: { secrets: [], searches: {}, emailAliases: ['todo'] },
    inboundFunction: 'inbound',
  });
  await env.broker.addFunction({
    name: 'inbound',
    entrypoint: 'functions/inbound.ts',
    access: 'system',
  });
  const domain = env.broker.inboundMail.addresses.domain;
  await env.broker.inboundMail.receive({
    raw: new TextEncoder().encode(
      [
        'From: Ann <ann@example.com>',
        `To: todo@${domain}`,
        'Subject: Received <b>one</b>',
        'Content-Type: multipart/mixed; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'hello',
        '--b',
        'Content-Type: text/plain; name="a.txt"',
        'Content-Disposition: attachment; filename="a.txt"',
        '',
        'abc',
        '--b--',
        '',
      ].join('\r\n'),
    ),
    envelopeFrom: 'ann@example.com',
  });
  await env.broker.outbox.capture(
    { from: 'todo', to: 'ann@example.com', subject: 'Sent one', text: 'hi' },
    ['todo'],
  );
  browser = await launchChromium();
  page = await openPage(browser);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await env?.cleanup();
});

describe('the dashboard in Chromium', { timeout: 60_000 }, () => {
  it('lists sent and received email side by side, newest first, as text', async () => {
    await page.goto(`${env.broker.server.url}/_platform/dashboard#email`);
    await page.waitForSelector('body[data-ready="true"]');
    const domain = env.broker.inboundMail.addresses.domain;
    const rows = await page
      .locator('#mail tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)),
      );
    expect(rows).toEqual([
      ['sent', 'todo', 'ann@example.com', 'Sent one', '', ''],
      [
        'received',
        'ann@example.com',
        `todo@${domain}`,
        'Received <b>one</b>',
        'inbound',
        'a.txt (3 bytes)',
      ],
    ]);
    // The subject is text, never markup.
    expect(await page.locator('#mail b').count()).toBe(0);
  });
});
