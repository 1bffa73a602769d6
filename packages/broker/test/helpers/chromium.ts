// Shared by the Chromium suites: Debian's headless Chromium through playwright-core.
import { type Browser, chromium, type Page } from 'playwright-core';

/** Launches the system Chromium headless, with nothing running in the background. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    timeout: 30_000,
  });
}

/** A page in a fresh context (its own cookie jar: another browser). */
export async function openPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** The value of the `platform_session` cookie of a page's context. */
export async function sessionCookie(page: Page): Promise<string | undefined> {
  return (await page.context().cookies()).find((c) => c.name === 'platform_session')?.value;
}
