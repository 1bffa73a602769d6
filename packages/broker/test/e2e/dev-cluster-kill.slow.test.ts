// `platform dev --database cluster` killed with SIGKILL: its PostgreSQL outlives it (nothing tells
// a child its parent died), so the next start must stop that server before starting its own. No
// server of the killed run stays behind, and a row a Function call wrote and answered for is
// still there.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { fixtureApp } from './fixture-app.ts';
import { ada, exitOf, spawnPlatform, waitForUrl } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
const children: ChildProcess[] = [];

beforeAll(async () => {
  app = await tempDir('dev-cluster-kill-');
  await writeFiles(app.path, fixtureApp);
  // The cluster's template beside the tests' PGlite snapshot, not in the machine cache.
  process.env.PLATFORM_CACHE_DIR = dirname(testSnapshotPath);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await app?.remove();
});

async function startDev(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnPlatform([
    'dev',
    app.path,
    '--port',
    '0',
    '--no-watch',
    '--database',
    'cluster',
  ]);
  children.push(child);
  return { child, url: await waitForUrl(child, [], 120_000) };
}

const data = () => join(app.path, '.platform/cluster/data');
const postmaster = () =>
  Number(readFileSync(join(data(), 'postmaster.pid'), 'utf8').split('\n')[0]);

/** Whether `pid` runs and is no zombie (an orphan's reaper may be slow to reap it). */
function isProcessRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** Live processes whose parent is `pid` (Linux /proc), zombies left out. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(ppid) === pid && state !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('platform dev on a private cluster, killed', { timeout: 300_000 }, () => {
  it('leaves no server behind after the next start and keeps the answered write', async () => {
    const first = await startDev();
    const state = JSON.parse(await readFile(join(app.path, '.platform/dev.json'), 'utf8')) as {
      appId: string;
      token: string;
    };
    const added = await fetch(`${first.url}/v1/apps/${state.appId}/invoke/addNote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${state.token}` },
      body: JSON.stringify({ input: { body: 'kept' }, user: ada }),
    });
    expect(added.status).toBe(200);
    const oldServer = postmaster();
    expect(childrenOf(oldServer).length).toBeGreaterThan(0);

    first.child.kill('SIGKILL');
    await exitOf(first.child);
    // The killed start's server runs on, with its backends.
    expect(isProcessRunning(oldServer)).toBe(true);

    const second = await startDev();
    try {
      const newServer = postmaster();
      expect(newServer).not.toBe(oldServer);
      expect(isProcessRunning(oldServer)).toBe(false);
      expect(childrenOf(oldServer)).toEqual([]);
      const url = `postgres://postgres@localhost/platform_app_${state.appId.replaceAll('-', '_')}?host=${encodeURIComponent(data())}`;
      const db = await PostgresDatabase.connect(url);
      try {
        const { rows } = await db.query<{ body: string; owner_id: string }>(
          'SELECT body, owner_id FROM notes',
        );
        expect(rows).toEqual([{ body: 'kept', owner_id: ada }]);
      } finally {
        await db.close();
      }
    } finally {
      const server = postmaster();
      second.child.kill('SIGTERM');
      expect(await exitOf(second.child, 60_000)).toBe(0);
      // A stop as usual takes its server with it.
      expect(isProcessRunning(server)).toBe(false);
    }
  });
});
