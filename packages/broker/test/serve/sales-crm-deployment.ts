// The sales-crm example as the serve suites deploy it: its calendar provider pointed at the test
// OAuth 2 server on loopback, and an organisation connection to it made as its owner makes one
// on the service, from the calendar app's console in Chromium, through the provider's sign-in.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestOAuthServer } from '../helpers/oauth-server.ts';
import { root, setSecret } from './serve-harness.ts';

/** The apps of the example, in the order they deploy (the publishers before their consumer). */
export const SALES_CRM_APPS = ['crm', 'calendar', 'sales'] as const;

/**
 * Copies the example's apps into `dir` (`dir/crm`, `dir/calendar`, `dir/sales`), with the
 * calendar's authorization URL at `oauth`. Its `CALENDAR_URL` secret is set once the calendar
 * is deployed ({@link setCalendarSecret}).
 */
export async function prepareSalesCrm(dir: string, oauth: TestOAuthServer): Promise<void> {
  await cp(join(root, 'examples/sales-crm'), dir, { recursive: true });
  // The example names a calendar service on the internet; here it is the loopback server.
  const yaml = join(dir, 'calendar/platform.yaml');
  await writeFile(
    yaml,
    (await readFile(yaml, 'utf8')).replace('https://calendar.example.com/oauth', oauth.url),
  );
}

/** The deployed calendar's `CALENDAR_URL` secret, set at `base` as its operator sets one. */
export async function setCalendarSecret(
  env: NodeJS.ProcessEnv,
  base: string,
  oauth: TestOAuthServer,
): Promise<void> {
  const set = await setSecret(env, base, 'calendar', 'CALENDAR_URL', oauth.url);
  expect(set.code, set.err).toBe(0);
}

/**
 * On `page`, signed in as the calendar app's owner `email` at `calendar` (its `{app_url}`):
 * makes an organisation connection to the calendar, bound into the sales app's `calendar`
 * slot, by a connect link from the app's console (the owner's session and the console's form
 * token, as its script sends them) and the provider's sign-in; answers the connect link.
 */
export async function connectCalendar(page: Page, calendar: string, email: string) {
  await page.goto(`${calendar}/_platform/dashboard`);
  const link = await page.evaluate(async (actingAs) => {
    const { csrf } = (await (await fetch('/_platform/dashboard/session')).json()) as {
      csrf: string;
    };
    const made = await fetch('/v1/apps/calendar/connections/links', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-platform-csrf': csrf },
      body: JSON.stringify({
        kind: 'organisation',
        actingAs,
        bind: { appId: 'sales', slot: 'calendar' },
      }),
    });
    return { status: made.status, body: (await made.json()) as { url?: string } };
  }, email);
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  const connectUrl = link.body.url as string;
  await page.goto(connectUrl);
  await Promise.all([
    page.waitForURL((url) => url.pathname === '/v1/custom-integrations/oauth/callback'),
    page.click('button[type="submit"]'),
  ]);
  expect(await page.textContent('body')).toContain('Team Calendar is connected');
  return connectUrl;
}
