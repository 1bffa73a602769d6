// Two private apps of one organisation under one platform dev, in a real headless Chromium:
// one sign-in (an account of the central store) serves both apps, each app keeps its own session and
// cookies on its own `<appId>.localhost` name, a session cookie or access token of one app is
// refused by the other in both directions, and no app database holds a password verifier.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import type { Database } from '../../src/db/database.ts';
import { addAccount } from '../auth/helpers.ts';
import { launchChromium, openPage, signInWithPassword } from '../helpers/chromium.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { root as repoRoot } from './helpers.ts';

declare global {
  interface Window {
    privateNotes: {
      addNote(note: string): Promise<{ user: { id: string } | null; notes: string[] }>;
      currentUser(): Promise<{ id: string; email: string } | null>;
    };
  }
}

const PAT = 'pat@example.com';
const SAM = 'sam@example.com';
const PASSWORD = 'a long password';

let dir: { path: string; remove: () => Promise<void> };
let ws: WorkspaceServer;
let browser: Browser;

beforeAll(async () => {
  dir = await tempDir('org-chromium-');
  const source = join(repoRoot, 'examples', 'private-notes');
  for (const name of ['notes', 'crm']) {
    await cp(source, join(dir.path, name), {
      recursive: true,
      filter: (path) => !path.includes(join(source, '.platform')),
    });
  }
  ws = await startWorkspace({
    appDirs: [join(dir.path, 'notes'), join(dir.path, 'crm')],
    watch: false,
    inMemory: true,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    logWriter: () => {},
  });
  // One account of the organisation, granted in both private apps.
  await addAccount(ws.apps[0]!.broker, PAT, PASSWORD);
  for (const app of ws.apps) await app.broker.auth.grantAccess(PAT);
  // A member granted in one app only.
  await addAccount(ws.apps[0]!.broker, SAM, PASSWORD);
  await ws.apps[0]!.broker.auth.grantAccess(SAM);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await ws?.close();
  await dir?.remove();
});

const notes = () => ws.app('notes')!;
const crm = () => ws.app('crm')!;
const userOf = async (page: Page) => {
  await page.waitForFunction(() => window.privateNotes !== undefined);
  return page.evaluate(() => window.privateNotes.currentUser());
};

describe('one organisation, two apps, in a real Chromium', { timeout: 90_000 }, () => {
  let page: Page;

  it('signs in once for both apps, each with its own session cookie', async () => {
    page = await openPage(browser);
    expect((await signInWithPassword(page, notes().url, PAT, PASSWORD)).status()).toBe(200);
    const inNotes = await userOf(page);
    // No second sign-in: the other app takes the sign-in over from the first.
    const landed = await page.goto(`${crm().url}/`);
    expect(landed?.status()).toBe(200);
    expect(page.url()).toBe(`${crm().url}/`);
    const inCrm = await userOf(page);
    // The same account (the central store's), so the same `auth.uid()` in both apps' RLS.
    expect(inNotes?.id).toBeDefined();
    expect(inCrm?.id).toBe(inNotes?.id);
    const cookies = (await page.context().cookies()).filter((c) => c.name === 'platform_session');
    expect(cookies.map((c) => c.domain).sort()).toEqual(['crm.localhost', 'notes.localhost']);
    expect(cookies[0]?.value).not.toBe(cookies[1]?.value);
  });

  it("refuses one app's session cookie at the other, both ways", async () => {
    const cookies = (await page.context().cookies()).filter((c) => c.name === 'platform_session');
    for (const [from, to] of [
      [notes(), crm()],
      [crm(), notes()],
    ] as const) {
      const stolen = cookies.find((c) => c.domain === `${from.appId}.localhost`)!;
      const other = await browser.newContext();
      try {
        await other.addCookies([
          { ...stolen, domain: `${to.appId}.localhost`, path: '/', sameSite: 'Lax' },
        ]);
        const tab = await other.newPage();
        await tab.goto(`${to.url}/`);
        // Treated as signed out: the app's sign-in page, not its private page.
        expect(new URL(tab.url()).host).toBe(`${to.appId}.localhost:${to.port}`);
        expect(new URL(tab.url()).pathname).toBe('/_platform/auth/sign-in');
      } finally {
        await other.close();
      }
    }
  });

  it("refuses one app's access token at the other, both ways", async () => {
    for (const [from, to] of [
      [notes(), crm()],
      [crm(), notes()],
    ] as const) {
      await page.goto(`${from.url}/`);
      const token = await page.evaluate(async () => {
        const response = await fetch('/_platform/api/session', { method: 'POST' });
        return ((await response.json()) as { token?: string }).token;
      });
      expect(token).toBeDefined();
      const own = await fetch(`http://localhost:${from.port}/_platform/api/functions/addNote`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"note":"mine"}',
      });
      expect(own.status).toBe(200);
      const foreign = await fetch(`http://localhost:${to.port}/_platform/api/functions/addNote`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"note":"theirs"}',
      });
      expect(foreign.status).toBe(401);
    }
  });

  it('still answers 403 in an app where the signed-in member has no grant', async () => {
    const other = await openPage(browser);
    try {
      expect((await signInWithPassword(other, notes().url, SAM, PASSWORD)).status()).toBe(200);
      const denied = await other.goto(`${crm().url}/`);
      expect(denied?.status()).toBe(403);
      expect(await other.content()).toContain(SAM);
    } finally {
      await other.context().close();
    }
  });

  it('keeps the password verifier in the central store only', async () => {
    const { rows } = await ws.apps[0]!.broker.central.query<{ password_verifier: string }>(
      'SELECT password_verifier FROM platform.accounts WHERE email = $1',
      [PAT],
    );
    const verifier = rows[0]?.password_verifier;
    expect(verifier).toMatch(/^scrypt\$/);
    expect(await databaseContains(ws.apps[0]!.broker.central, verifier!)).toBe(true);
    for (const app of ws.apps) {
      expect(app.broker.central).not.toBe(app.broker.db);
      expect(await databaseContains(app.broker.db, verifier!)).toBe(false);
      expect(await databaseContains(app.broker.db, PASSWORD)).toBe(false);
    }
  });
});

/** Whether any row of any table of `db` (every schema but the system catalogs) holds `text`. */
async function databaseContains(db: Database, text: string): Promise<boolean> {
  const { rows: tables } = await db.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  for (const table of tables) {
    const { rows } = await db.query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM "${table.schema}"."${table.name}" AS t
                      WHERE strpos(t::text, $1) > 0) AS found`,
      [text],
    );
    if (rows[0]?.found) return true;
  }
  return false;
}
