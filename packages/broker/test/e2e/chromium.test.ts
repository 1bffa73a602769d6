// The example app's page in a real headless Chromium (installed by scripts/setup-system.sh)
// against `platform dev`: the frontend bundle, the browser SDK, Function calls, a file upload and
// a stream, all through the browser's own fetch. The signed-in user is the test identity header.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { ada, copyExample, devFor } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let browser: Browser;

beforeAll(async () => {
  app = await copyExample();
  ({ dev } = await devFor(app.path, { watch: false }));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.close();
  await app?.remove();
});

async function open(user?: string): Promise<Page> {
  const page = await browser.newPage();
  if (user) await page.setExtraHTTPHeaders({ 'x-test-user': user });
  await page.goto(dev.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return page;
}

describe('the example page in Chromium', () => {
  it('shows the tips and a sign-in link to an anonymous visitor', async () => {
    const page = await open();
    try {
      await expect.poll(() => page.locator('#tips li').count()).toBe(3);
      expect(await page.locator('#sign-in').isVisible()).toBe(true);
      expect(await page.locator('#sign-in').getAttribute('href')).toContain(
        '/_platform/auth/sign-in',
      );
      expect(await page.locator('#todos-section').isVisible()).toBe(false);
    } finally {
      await page.close();
    }
  });

  it('adds, toggles, attaches a file to, and exports todos', async () => {
    const page = await open(ada);
    const files = await tempDir('upload-');
    try {
      await page.fill('#title', 'Water the plants');
      await page.click('#new-todo button[type="submit"]');
      const item = page.locator('#todos li', { hasText: 'Water the plants' });
      await item.waitFor();
      await item.locator('input[type=checkbox]').check();
      await expect.poll(() => item.getAttribute('class')).toBe('done');
      const upload = join(files.path, 'plants.txt');
      await writeFile(upload, 'fern, basil');
      await item.locator('input[type=file]').setInputFiles(upload);
      await expect.poll(() => item.locator('small').textContent()).toContain('plants.txt');
      await page.click('#export');
      await expect
        .poll(() => page.locator('#csv').textContent())
        .toContain('"Water the plants","true"');
      expect(await page.locator('#status').textContent()).toBe('');
      // The bytes arrived intact through the Function and the files route.
      const [row] = (await (
        await fetch(`${dev.url}/rest/v1/todos?select=attachment_id`, {
          headers: { 'x-test-user': ada },
        })
      ).json()) as { attachment_id: string }[];
      const { data } = await dev.broker.files.download({ kind: 'system' }, row!.attachment_id);
      expect(Buffer.from(data).toString()).toBe('fern, basil');
    } finally {
      await page.close();
      await files.remove();
    }
  });
});
