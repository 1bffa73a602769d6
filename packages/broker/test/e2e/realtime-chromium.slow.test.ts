// Realtime end to end in headless Chromium against `platform dev` of the todo example, with the
// broker's real sign-in: two people in two browser contexts (their own cookie jars) see each
// other's presence and broadcasts, each receives only the todo changes its RLS policy lets it
// see (a row moved to the other person arrives as a delete), a second tab of the same person
// shows a new todo live, and a connection that is cut reconnects and reports what it missed.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { addAccount } from '../auth/helpers.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { copyExample, devFor } from './helpers.ts';

const RITA = 'rita@example.com';
const SAM = 'sam@example.com';
const PASSWORD = 'a long password';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let browser: Browser;
let client = '';

/** `@platform/browser/realtime` as a script that puts `createRealtime` on `window`. */
async function realtimeScript(): Promise<string> {
  const entry = fileURLToPath(new URL('../../../browser/src/realtime/index.ts', import.meta.url));
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    globalName: 'PlatformRealtime',
    platform: 'browser',
    conditions: ['@platform/source'],
    write: false,
    logLevel: 'error',
  });
  return result.outputFiles[0]!.text;
}

beforeAll(async () => {
  app = await copyExample('todo');
  // A channel browsers may send on, besides the example's own.
  const manifest = join(app.path, 'platform.yaml');
  await writeFile(
    manifest,
    (await readFile(manifest, 'utf8')).replace(
      '    viewers: { join: signed-in, send: functions }',
      '    viewers: { join: signed-in, send: functions }\n    "chat:*": { join: signed-in, send: signed-in }',
    ),
  );
  ({ dev } = await devFor(app.path, { watch: false, inMemory: true }, 'sign-in'));
  await addAccount(dev.broker, RITA, PASSWORD);
  await addAccount(dev.broker, SAM, PASSWORD);
  client = await realtimeScript();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dev?.close();
  await app?.remove();
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
  const origin = new URL(dev.url).origin;
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${origin}/_platform/auth/sign-in?returnTo=${encodeURIComponent(`${origin}/`)}`);
  await page.click('summary');
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('#password-sign-in');
  await page.waitForSelector('body[data-ready="true"]');
  return { context, page };
}

async function openTab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${new URL(dev.url).origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/**
 * Starts a test client in `page`: its sockets, received broadcasts, changes, gaps and statuses
 * are kept on `window.rt` for the test to read.
 */
async function startClient(page: Page): Promise<void> {
  await page.addScriptTag({ content: client });
  await page.evaluate(`(() => {
    const sockets = [];
    class Recorded extends WebSocket {
      constructor(url) { super(url); sockets.push(this); }
    }
    const realtime = PlatformRealtime.createRealtime({ WebSocket: Recorded, minReconnectMs: 1500, maxReconnectMs: 1500 });
    window.rt = { realtime, sockets, broadcasts: [], changes: [], gaps: [], statuses: [] };
    realtime.onGap((gap) => window.rt.gaps.push(gap));
    realtime.onStatus((status) => window.rt.statuses.push(status));
  })()`);
}

const read = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;

describe('realtime in Chromium', { timeout: 60_000 }, () => {
  it('two people see each other on the page and each other’s broadcasts', async () => {
    const rita = await signIn(RITA);
    const sam = await signIn(SAM);
    await expect.poll(() => rita.page.locator('#viewers').textContent()).toContain(SAM);
    await expect.poll(() => sam.page.locator('#viewers').textContent()).toContain(RITA);

    for (const { page } of [rita, sam]) {
      await startClient(page);
      await page.evaluate(`(async () => {
        window.rt.chat = await window.rt.realtime.channel('chat:1');
        window.rt.chat.on('*', (payload, meta) => window.rt.broadcasts.push({ payload, event: meta.event }));
      })()`);
    }
    await rita.page.evaluate(`window.rt.chat.send('hello', { from: 'rita' })`);
    await sam.page.evaluate(`window.rt.chat.send('hello', { from: 'sam' })`);
    await expect
      .poll(() => read(sam.page, 'window.rt.broadcasts'))
      .toEqual([{ event: 'hello', payload: { from: 'rita' } }]);
    await expect
      .poll(() => read(rita.page, 'window.rt.broadcasts'))
      .toEqual([{ event: 'hello', payload: { from: 'sam' } }]);

    // Sam closes the tab: Rita's page no longer lists him.
    await sam.context.close();
    await expect.poll(() => rita.page.locator('#viewers').textContent()).not.toContain(SAM);
    await rita.context.close();
  });

  it('delivers todo changes only to whom RLS shows them; a row moved away arrives as a delete', async () => {
    const rita = await signIn(RITA);
    const sam = await signIn(SAM);
    const ritaTab = await openTab(rita.context);
    for (const { page } of [rita, sam]) {
      await startClient(page);
      await page.evaluate(
        `window.rt.realtime.changes('todos', (change) => window.rt.changes.push(change))`,
      );
    }
    // Added in one tab, shown live in the other (the example subscribes to its todos).
    await ritaTab.fill('#title', 'Buy milk');
    await ritaTab.click('#new-todo button[type="submit"]');
    await expect.poll(() => rita.page.locator('#todos li').count()).toBe(1);
    const inserted = await read<{ op: string; row: { id: string; title: string } }[]>(
      rita.page,
      'window.rt.changes',
    );
    expect(inserted).toMatchObject([{ op: 'insert', row: { title: 'Buy milk' } }]);
    const id = inserted[0]!.row.id;

    // Handed to Sam by the database: Rita may no longer see it, Sam now may.
    const { rows } = await dev.broker.central.query<{ id: string }>(
      'SELECT id FROM platform.accounts WHERE email = $1',
      [SAM],
    );
    await dev.broker.db.query('UPDATE public.todos SET owner_id = $1 WHERE id = $2', [
      rows[0]!.id,
      id,
    ]);
    await expect
      .poll(() => read<{ op: string }[]>(rita.page, 'window.rt.changes.map((c) => c.op)'))
      .toEqual(['insert', 'delete']);
    expect(await read(rita.page, 'window.rt.changes[1].old')).toEqual({ id });
    await expect
      .poll(() => read(sam.page, 'window.rt.changes'))
      .toMatchObject([{ op: 'update', row: { id, title: 'Buy milk' } }]);
    await expect.poll(() => sam.page.locator('#todos li').count()).toBe(1);
    await expect.poll(() => rita.page.locator('#todos li').count()).toBe(0);
    await rita.context.close();
    await sam.context.close();
  });

  it('a cut connection reconnects, joins again and reports the messages it missed', async () => {
    const rita = await signIn(RITA);
    const sam = await signIn(SAM);
    for (const { page } of [rita, sam]) {
      await startClient(page);
      await page.evaluate(`(async () => {
        window.rt.chat = await window.rt.realtime.channel('chat:gap');
        window.rt.chat.on('n', (payload) => window.rt.broadcasts.push(payload));
      })()`);
    }
    await sam.page.evaluate(`window.rt.chat.send('n', 1)`);
    await expect.poll(() => read(rita.page, 'window.rt.broadcasts')).toEqual([1]);
    await rita.page.evaluate('window.rt.sockets[0].close()');
    await expect.poll(() => read(rita.page, 'window.rt.statuses.at(-1)')).toBe('closed');
    await sam.page.evaluate(`window.rt.chat.send('n', 2)`);
    await sam.page.evaluate(`window.rt.chat.send('n', 3)`);
    await expect
      .poll(() => read(rita.page, 'window.rt.gaps'), { timeout: 10_000 })
      .toEqual([{ channel: 'chat:gap', missed: 2 }]);
    expect(await read(rita.page, 'window.rt.sockets.length')).toBe(2);
    // Joined again: what is sent now arrives.
    await sam.page.evaluate(`window.rt.chat.send('n', 4)`);
    await expect.poll(() => read(rita.page, 'window.rt.broadcasts')).toEqual([1, 4]);
    await rita.context.close();
    await sam.context.close();
  });
});
