// Sign-in end to end: a real headless Chromium against a started broker serving a
// private app whose page uses the bundled @platform/browser.
import { cp, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage as openIn, signInWithPassword } from '../helpers/chromium.ts';
import { addAccount, authBroker, HOUR, latestLinkToken, MINUTE, TestClock } from './helpers.ts';

type Sdk = typeof import('../../../browser/src/index.ts');
declare global {
  interface Window {
    sdk: Sdk;
  }
}

const fixture = fileURLToPath(new URL('./fixtures/private-app/', import.meta.url));
const OWNER = 'owner@example.com';
const PAT = 'pat@example.com';
const PASSWORD = 'a long password';

let env: Awaited<ReturnType<typeof authBroker>>;
let browser: Browser;
let origin = '';

beforeAll(async () => {
  const clock = new TestClock(Date.now());
  env = await authBroker({ clock, auth: { ownerEmail: OWNER, visibility: 'private' } });
  await cp(fixture, env.appDir, { recursive: true });
  const bundle = await build({
    stdin: {
      contents: "export * from './src/index.ts';",
      resolveDir: fileURLToPath(new URL('../../../browser/', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'sdk',
    conditions: ['@platform/source'],
    platform: 'browser',
    write: false,
  });
  const sdk = bundle.outputFiles[0]?.text ?? '';
  const html = await readFile(`${fixture}/index.html`, 'utf8');
  // The app's frontend, mounted after admission (as platform dev mounts public/).
  env.broker.app.get('/sdk.js', (c) => c.body(sdk, 200, { 'content-type': 'text/javascript' }));
  env.broker.app.get('/', (c) => c.html(html));
  await env.broker.db.exec(await readFile(`${fixture}/migrations/001_notes.sql`, 'utf8'));
  await env.broker.addFunction({
    name: 'whoami',
    entrypoint: 'functions/whoami/whoami.ts',
    access: 'user',
  });
  await addAccount(env.broker, PAT, PASSWORD);
  origin = env.broker.server.url;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await env?.cleanup();
});

const openPage = (): Promise<Page> => openIn(browser);

const callWhoami = (page: Page, note: string) =>
  page.evaluate(async (text) => {
    window.platformInstance ??= window.sdk.createPlatform();
    return window.platformInstance.functions.call('whoami', { note: text });
  }, note);

declare global {
  interface Window {
    platformInstance?: ReturnType<Sdk['createPlatform']>;
  }
}

describe('sign-in in a real Chromium', { timeout: 60_000 }, () => {
  let desk: Page;

  it('signs in by email link: redirect, link in another browser, claim, back to the private page', async () => {
    desk = await openPage();
    await desk.goto(`${origin}/`);
    expect(new URL(desk.url()).pathname).toBe('/_platform/auth/sign-in');
    await desk.fill('#email', OWNER);
    await desk.click('#email-link');
    await desk.waitForSelector('text=Check your email');
    const token = await latestLinkToken(env.broker, OWNER);
    // The message opens in another browser (the mail app); only the review page renders.
    const mail = await openPage();
    await mail.goto(`${origin}/_platform/auth/confirm?token=${token}`);
    await mail.click('#confirm');
    await mail.waitForSelector('#done');
    expect(await mail.context().cookies()).not.toContainEqual(
      expect.objectContaining({ name: 'platform_session' }),
    );
    await mail.context().close();
    // The waiting window notices through its claim and continues to the original page.
    await desk.waitForURL(`${origin}/`);
    expect(await desk.textContent('#private')).toBe('private page');
    const session = (await desk.context().cookies()).find((c) => c.name === 'platform_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  });

  it('reads the user and calls a user Function through the browser SDK', async () => {
    const result = await desk.evaluate(async () => ({
      user: await window.sdk.createPlatform().auth.currentUser(),
      cookies: document.cookie,
    }));
    expect(result).toEqual({ user: { id: expect.any(String), email: OWNER }, cookies: '' });
    const called = await callWhoami(desk, 'first');
    expect(called).toEqual({ user: { id: result.user?.id }, notes: ['first'] });
  });

  it('survives an access-token expiry by refreshing', async () => {
    const before = (await desk.context().cookies()).find(
      (c) => c.name === 'platform_session',
    )?.value;
    env.clock.advance(HOUR + MINUTE);
    const called = (await callWhoami(desk, 'second')) as { notes: string[] };
    // Rows come ordered by id (random UUIDs).
    expect(called.notes.sort()).toEqual(['first', 'second']);
    const after = (await desk.context().cookies()).find(
      (c) => c.name === 'platform_session',
    )?.value;
    expect(after).not.toBe(before);
  });

  it('signs out: only this browser, and the private app asks for sign-in again', async () => {
    await desk.goto(`${origin}/_platform/auth/sign-out`);
    await desk.click('#sign-out');
    await desk.waitForURL(/\/_platform\/auth\/sign-in/);
    await desk.goto(`${origin}/`);
    expect(new URL(desk.url()).pathname).toBe('/_platform/auth/sign-in');
    await desk.context().close();
  });

  it('signs in by password, gets 403 without a grant, and gets in once granted', async () => {
    const page = await openPage();
    const denied = await signInWithPassword(page, origin, PAT, PASSWORD);
    expect(denied.status()).toBe(403);
    expect(await page.textContent('#denied')).toContain('No access');
    expect(await page.content()).not.toContain('private page');
    await env.broker.auth.grantAccess(PAT);
    const response = await page.reload();
    expect(response?.status()).toBe(200);
    expect(await callWhoami(page, 'pat note')).toMatchObject({ notes: ['pat note'] });
    await page.context().close();
  });
});
