// Two `platform dev` on one app folder: the second is refused before it opens the database,
// naming the running one's URL, and leaves the first one's `.platform/dev.json` alone; a lock
// left by a SIGKILLed `platform dev` does not block the next start.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { fixtureApp } from './fixture-app.ts';
import { exitOf, spawnPlatform, waitForUrl } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
const children: ChildProcess[] = [];

/** Starts `platform dev` on the app; resolves with its URL or, when it exits first, its lines. */
async function startDevProcess(): Promise<{ child: ChildProcess; url?: string; lines: string[] }> {
  const child = spawnPlatform(['dev', app.path, '--port', '0']);
  children.push(child);
  const lines: string[] = [];
  try {
    return { child, url: await waitForUrl(child, lines), lines };
  } catch {
    return { child, lines };
  }
}

beforeAll(async () => {
  app = await tempDir('dev-lock-');
  await writeFiles(app.path, fixtureApp);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await app?.remove();
});

describe('one platform dev per app folder', () => {
  it('refuses a second platform dev, naming the running one, and leaves its dev.json', async () => {
    const first = await startDevProcess();
    expect(first.url).toMatch(/^http:\/\/localhost:\d+$/);
    const statePath = join(app.path, '.platform/dev.json');
    const state = await readFile(statePath, 'utf8');

    const second = await startDevProcess();
    if (second.url) second.child.kill('SIGTERM');
    expect(second.url).toBeUndefined();
    expect(await exitOf(second.child)).toBe(1);
    const said = second.lines.join('\n');
    expect(said).toContain(`already running for this app folder at ${first.url}`);
    // Nothing of the second start touched the first one's state, which still serves.
    expect(await readFile(statePath, 'utf8')).toBe(state);
    expect((await fetch(`${first.url}/echo/hi`)).status).toBe(200);

    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).toBe(0);
    expect(existsSync(statePath)).toBe(false);
    expect(existsSync(join(app.path, '.platform/db.lock'))).toBe(false);
  });

  it('starts after a platform dev was SIGKILLed, though its lock file is left', async () => {
    const killed = await startDevProcess();
    expect(killed.url).toBeDefined();
    killed.child.kill('SIGKILL');
    await exitOf(killed.child);
    expect(existsSync(join(app.path, '.platform/db.lock'))).toBe(true);

    const next = await startDevProcess();
    expect(next.lines.join('\n')).not.toContain('already running');
    expect(next.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect((await fetch(`${next.url}/echo/hi`)).status).toBe(200);
    next.child.kill('SIGTERM');
    expect(await exitOf(next.child)).toBe(0);
  });
});
