// The app's real id: derived once from the folder name, kept in .platform/app.json across
// restarts and renames, used by the owner API paths (jobs, cron, dashboard); the old
// `/v1/apps/local/...` paths redirect, and job rows an older broker stored under `local` move.
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorFromResponse } from '@platform/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker } from '../../src/app/start-broker.ts';
import { appIdPath, deriveAppId, loadAppId } from '../../src/project/app-id.ts';
import { headerAuthenticate } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function folder(name: string): Promise<string> {
  const dir = await tempDir('app-id-');
  cleanups.push(dir.remove);
  const path = join(dir.path, name);
  await mkdir(path);
  return path;
}

describe('deriveAppId', () => {
  it('makes a host-name label of the folder name', () => {
    expect(deriveAppId('todo')).toBe('todo');
    expect(deriveAppId('My Notes_v2')).toBe('my-notes-v2');
    expect(deriveAppId('--Crm--')).toBe('crm');
    expect(deriveAppId('日本')).toBe('app');
    expect(deriveAppId('a'.repeat(80))).toHaveLength(40);
  });
});

describe('loadAppId', () => {
  it('keeps the first id across calls and renames, and avoids ids other apps hold', async () => {
    const dir = await folder('Notes App');
    expect(await loadAppId(dir)).toBe('notes-app');
    expect(JSON.parse(await readFile(appIdPath(dir), 'utf8'))).toEqual({ appId: 'notes-app' });
    const renamed = await folder('renamed');
    await cp(join(dir, '.platform'), join(renamed, '.platform'), { recursive: true });
    expect(await loadAppId(renamed)).toBe('notes-app');
    const twin = await folder('notes-app');
    expect(await loadAppId(twin, new Set(['notes-app', 'notes-app-2']))).toBe('notes-app-3');
  });
});

describe('a broker on its real app id', { timeout: 60_000 }, () => {
  const start = (appDir: string) =>
    startBroker({
      appDir,
      sdkVersion: '2.6.0',
      databaseUrl: '',
      snapshotPath: testSnapshotPath,
      logWriter: () => {},
      authenticate: headerAuthenticate,
      jobs: { run: false },
    });

  it('answers the jobs API on its id, redirects the old path, adopts older rows', async () => {
    const dir = await folder('Shop');
    const first = await start(dir);
    expect(first.appId).toBe('shop');
    // A job an older broker stored under the app id `local`.
    await first.db.query(
      `insert into platform.jobs (id, kind, app_id, environment, namespace, queue, state, payload, payload_hash,
         idempotency_key, max_attempts, concurrency, retry_delay_seconds, retry_backoff, timeout_seconds, run_at, created_at, updated_at)
       values ('job_old', 'job', 'local', 'development', 'default', 'a', 'succeeded', '{}', 'h', 'k', 1, 1, 1, false, 1, now(), now(), now())`,
    );
    await first.close();

    const second = await start(dir);
    cleanups.push(() => second.close());
    expect(second.appId).toBe('shop');
    const listed = await second.app.request('/v1/apps/shop/jobs');
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { jobs: { id: string }[] }).jobs.map((j) => j.id)).toEqual([
      'job_old',
    ]);
    const unknown = await second.app.request('/v1/apps/other/jobs');
    expect(unknown.status).toBe(404);
    expect((await errorFromResponse(unknown)).code).toBe('APP_NOT_FOUND');
    const old = await second.app.request('/v1/apps/local/jobs/job_old?x=1');
    expect(old.status).toBe(308);
    expect(old.headers.get('location')).toBe('/v1/apps/shop/jobs/job_old?x=1');
  });
});
