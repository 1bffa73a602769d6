// Sign-in against `platform dev` itself: a real headless Chromium on the private
// example app (examples/private-notes, its page bundled from public/app.ts with the broker's
// @platform/browser) signs in by email link and by password, reaches the private page, gets 403
// without a grant, calls a `user` Function through the browser SDK, survives an access-token
// expiry (the dev server's injected clock advanced) and signs out.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { addAccount, HOUR, latestLinkToken, MINUTE, TestClock } from '../auth/helpers.ts';
import {
  launchChromium,
  openPage,
  sessionCookie,
  signInWithPassword,
} from '../helpers/chromium.ts';
import { copyExample, devFor } from './helpers.ts';

interface Added {
  user: { id: string } | null;
  notes: string[];
}
declare global {
  interface Window {
    privateNotes: {
      addNote(note: string): Promise<Added>;
      currentUser(): Promise<{ id: string; email: string } | null>;
    };
  }
}

const OWNER = 'owner@localhost';
const PAT = 'pat@example.com';
const PASSWORD = 'a long password';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let browser: Browser;
const clock = new TestClock(Date.now());
const printed: string[] = [];

beforeAll(async () => {
  app = await copyExample('private-notes');
  ({ dev } = await devFor(
    app.path,
    { watch: false, inMemory: true, clock, logWriter: (line) => printed.push(line) },
    'sign-in',
  ));
  await addAccount(dev.broker, PAT, PASSWORD);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dev?.close();
  await app?.remove();
});

const addNote = (page: Page, note: string) =>
  page.evaluate((text) => window.privateNotes.addNote(text), note);

describe('platform dev of a private app in a real Chromium', { timeout: 60_000 }, () => {
  let desk: Page;

  it('signs in by email link and comes back to the private page', async () => {
    desk = await openPage(browser);
    await desk.goto(`${dev.url}/`);
    expect(new URL(desk.url()).pathname).toBe('/_platform/auth/sign-in');
    await desk.fill('#email', OWNER);
    await desk.click('#email-link');
    await desk.waitForSelector('text=Check your email');
    // The link is printed in the terminal of platform dev (and captured in the outbox).
    const token = await latestLinkToken(dev.broker, OWNER);
    expect(printed.some((line) => line.includes(`confirm?token=${token}`))).toBe(true);
    const mail = await openPage(browser);
    await mail.goto(`${dev.url}/_platform/auth/confirm?token=${token}`);
    await mail.click('#confirm');
    await mail.waitForSelector('#done');
    await mail.context().close();
    await desk.waitForURL(`${dev.url}/`);
    expect(await desk.textContent('#private')).toBe('Private notes');
    await desk.waitForSelector(`text=Signed in as ${OWNER}`);
  });

  it('calls a user Function through the browser SDK', async () => {
    const user = await desk.evaluate(() => window.privateNotes.currentUser());
    expect(user).toEqual({ id: expect.any(String), email: OWNER });
    expect(await addNote(desk, 'first')).toEqual({ user: { id: user?.id }, notes: ['first'] });
  });

  it('survives an access-token expiry by refreshing', async () => {
    const before = await sessionCookie(desk);
    clock.advance(HOUR + MINUTE);
    expect((await addNote(desk, 'second')).notes).toEqual(['first', 'second']);
    const after = await sessionCookie(desk);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });

  it('signs out, and the private app asks for sign-in again', async () => {
    await desk.goto(`${dev.url}/_platform/auth/sign-out`);
    await desk.click('#sign-out');
    await desk.waitForURL(/\/_platform\/auth\/sign-in/);
    await desk.goto(`${dev.url}/`);
    expect(new URL(desk.url()).pathname).toBe('/_platform/auth/sign-in');
    expect(await sessionCookie(desk)).toBeUndefined();
    await desk.context().close();
  });

  it('signs in by password: 403 without a grant, in once granted', async () => {
    const page = await openPage(browser);
    const denied = await signInWithPassword(page, dev.url, PAT, PASSWORD);
    expect(denied.status()).toBe(403);
    expect(await page.textContent('#denied')).toContain('No access');
    expect(await page.content()).not.toContain('Private notes');
    // Neither the page's script nor the runtime API is served without a grant.
    expect((await page.request.get(`${dev.url}/app.js`)).status()).toBe(403);
    await dev.broker.auth.grantAccess(PAT);
    expect((await page.reload())?.status()).toBe(200);
    await page.waitForSelector(`text=Signed in as ${PAT}`);
    expect(await addNote(page, 'pat note')).toMatchObject({ notes: ['pat note'] });
    await page.context().close();
  });
});
