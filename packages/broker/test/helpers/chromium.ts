// Shared by the Chromium suites: Debian's headless Chromium through playwright-core.
import { type Browser, chromium, type Page, type Response } from 'playwright-core';

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

/**
 * A page in a fresh context (its own cookie jar: another browser); `bypassCSP` lets a test
 * inject a script such as axe-core into a page whose CSP would refuse it.
 */
export async function openPage(
  browser: Browser,
  options: { readonly bypassCSP?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** The value of the `platform_session` cookie of a page's context. */
export async function sessionCookie(page: Page): Promise<string | undefined> {
  return (await page.context().cookies()).find((c) => c.name === 'platform_session')?.value;
}

/**
 * Opens `origin/` (a private app: the sign-in page), reveals the password field and signs in as
 * `email`; resolves to the response of the page the browser lands on (the app, or 403).
 */
export async function signInWithPassword(
  page: Page,
  origin: string,
  email: string,
  password: string,
): Promise<Response> {
  await page.goto(`${origin}/`);
  await page.click('summary');
  await page.fill('#email', email);
  await page.fill('#password', password);
  const landed = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/' && r.request().method() === 'GET',
  );
  await page.click('#password-sign-in');
  return landed;
}
