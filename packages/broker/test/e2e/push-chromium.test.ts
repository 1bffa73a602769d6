// Web Push end to end in a real headless Chromium against `platform dev` of the todo example:
// a user signed in with a password turns reminders on (the browser SDK's @platform/browser/push
// subscribes the user at the local push service), the reminder job (a real Function) sends, the
// local push service verifies the VAPID JWT and decrypts the payload, and the app's real service
// worker (public/sw.ts with @platform/browser/push-worker) shows it. Headless Chromium cannot
// reach a browser push service (PushManager.subscribe is refused), so the decrypted message is
// handed to the worker with the DevTools protocol's ServiceWorker.deliverPushMessage, which
// runs the worker's own push handler.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { addAccount } from '../auth/helpers.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { copyExample, devFor } from './helpers.ts';

const EMAIL = 'rita@example.com';
const PASSWORD = 'a long password';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let browser: Browser;

beforeAll(async () => {
  app = await copyExample('todo');
  ({ dev } = await devFor(app.path, { watch: false, inMemory: true }, 'sign-in'));
  await addAccount(dev.broker, EMAIL, PASSWORD);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dev?.close();
  await app?.remove();
});

async function signedInPage(): Promise<{
  page: Page;
  cdp: CDPSession;
  registrationId: () => string;
}> {
  const origin = new URL(dev.url).origin;
  const context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => {
    registrations.push(...event.registrations);
  });
  await cdp.send('ServiceWorker.enable');
  await page.goto(`${origin}/_platform/auth/sign-in?returnTo=${encodeURIComponent(`${origin}/`)}`);
  await page.click('summary');
  await page.fill('#email', EMAIL);
  await page.fill('#password', PASSWORD);
  await page.click('#password-sign-in');
  await page.waitForSelector('body[data-ready="true"]');
  await expect.poll(() => page.locator('#who').textContent()).toContain(EMAIL);
  await page.evaluate(() => navigator.serviceWorker.ready);
  const registrationId = () => {
    const live = registrations.filter((r) => !r.isDeleted && r.scopeURL === `${origin}/`);
    if (live.length === 0) throw new Error('the service worker is not registered');
    return live.at(-1)!.registrationId;
  };
  return { page, cdp, registrationId };
}

async function invokeAsSystem(name: string, input: unknown): Promise<unknown> {
  const { token } = JSON.parse(await readFile(join(app.path, '.platform', 'dev.json'), 'utf8')) as {
    token: string;
  };
  const response = await fetch(`${dev.url}/v1/apps/${dev.appId}/invoke/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: unknown }).result;
}

describe('push notifications in Chromium', () => {
  it('a signed-in user subscribes, the reminder job sends, the service worker shows it', async () => {
    const { page, cdp, registrationId } = await signedInPage();
    await page.click('#notify');
    await expect.poll(() => page.locator('#status').textContent()).toContain('Reminders on');

    await page.fill('#title', 'Buy milk');
    await page.click('#new-todo button[type="submit"]');
    await expect.poll(() => page.locator('#todos li').count()).toBe(1);
    const { rows } = await dev.broker.db.query<{ id: string }>('SELECT id FROM public.todos');
    const todoId = rows[0]!.id;

    const result = (await invokeAsSystem('sendReminder', { todoId })) as { delivered: number };
    expect(result.delivered).toBe(1);

    // What the local push service received: verified, decrypted, the notification's JSON.
    const [delivery] = await dev.broker.push.local!.deliveries(1);
    expect(delivery?.payload).toEqual({
      title: 'Reminder: Buy milk',
      body: 'Still open.',
      url: '/',
      tag: `todo-${todoId}`,
    });

    // Handed to the worker as a browser's push service would: again until it is shown (a busy
    // machine can drop a message to a worker that is still starting; the tag keeps it to one).
    const shown = async () => {
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: new URL(dev.url).origin,
        registrationId: registrationId(),
        data: JSON.stringify(delivery!.payload),
      });
      return page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          data: n.data as unknown,
        })),
      );
    };
    await expect.poll(shown, { interval: 500 }).toEqual([
      {
        title: 'Reminder: Buy milk',
        body: 'Still open.',
        tag: `todo-${todoId}`,
        data: { url: `${new URL(dev.url).origin}/` },
      },
    ]);

    // Turning reminders off removes this device: the next reminder reaches nobody.
    await page.click('#notify-off');
    await expect
      .poll(() => page.locator('#status').textContent())
      .toBe('Reminders off for this device.');
    expect(await invokeAsSystem('sendReminder', { todoId })).toMatchObject({ delivered: 0 });
    await page.context().close();
  });
});
