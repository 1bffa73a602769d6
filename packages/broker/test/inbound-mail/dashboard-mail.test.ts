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
let sentId: string;

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
  ({ id: sentId } = await env.broker.outbox.capture(
    { from: 'todo', to: 'ann@example.com', subject: 'Sent one', text: 'hi' },
    ['todo'],
  ));
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
      ['sent', 'todo', 'ann@example.com', 'Sent one', '', '', 'Deliver to inbound'],
      [
        'received',
        'ann@example.com',
        `todo@${domain}`,
        'Received <b>one</b>',
        'inbound',
        'a.txt (3 bytes)',
        '',
      ],
    ]);
    // The subject is text, never markup.
    expect(await page.locator('#mail b').count()).toBe(0);
  });

  it('delivers a sent email to the inbound email Function after a confirmation', async () => {
    const domain = env.broker.inboundMail.addresses.domain;
    const mails = async () =>
      (
        await env.broker.db.query<{ sender: string; recipients: string; body: string }>(
          "SELECT sender, recipients, body FROM mails WHERE subject = 'Sent one'",
        )
      ).rows;
    const button = page.locator(`button[aria-label="Deliver to inbound: ${sentId}"]`);
    page.once('dialog', (dialog) => dialog.dismiss());
    await button.click();
    expect(await mails()).toEqual([]);
    page.once('dialog', (dialog) => dialog.accept());
    await button.click();
    // The Function ran with the message the mail client would have received, at the app's
    // address (the email went out to ann@example.com), and the list shows it received.
    await page
      .locator('#mail tbody tr', { hasText: 'Sent one' })
      .locator('td:text-is("received")')
      .waitFor();
    expect(await mails()).toEqual([
      { sender: `todo@${domain}`, recipients: `todo@${domain}`, body: 'hi' },
    ]);
    const missing = await env.broker.app.request(
      `/v1/apps/${env.broker.appId}/outbox/email_none/receive`,
      { method: 'POST' },
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'EMAIL_NOT_FOUND' } });
  });
});
