// `platform dev --database cluster`: the central store and each app's database on one private
// PostgreSQL server per folder, laid out as `platform serve` lays them out.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace } from '../../src/app/start-workspace.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { isProcessRunning } from '../../src/kernel/process-mark.ts';
import { fixtureApp } from '../e2e/fixture-app.ts';
import { ada, devFor, fetchAs } from '../e2e/helpers.ts';
import { headerAuthenticate, writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const postmasterOf = (folder: string): number =>
  Number(
    readFileSync(join(folder, '.platform/cluster/data/postmaster.pid'), 'utf8').split('\n')[0],
  );

const gone = async (pid: number) => {
  for (let i = 0; i < 200 && isProcessRunning(pid); i++)
    await new Promise((r) => setTimeout(r, 25));
  return !isProcessRunning(pid);
};

const databaseOf = async (db: unknown) =>
  (await (db as PostgresDatabase).query<{ name: string }>('SELECT current_database() AS name'))
    .rows[0]?.name;

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir('dev-cluster-');
});
afterAll(async () => {
  await dir?.remove();
});

describe('platform dev on a private cluster', { timeout: 120_000 }, () => {
  it('keeps the central store and the app database on one server in .platform/cluster', async () => {
    const folder = join(dir.path, 'notes');
    await writeFiles(folder, fixtureApp);
    const { dev } = await devFor(folder, { watch: false, database: 'cluster' });
    let pid = 0;
    try {
      pid = postmasterOf(folder);
      expect(dev.broker.db).toBeInstanceOf(PostgresDatabase);
      expect(await databaseOf(dev.broker.db)).toBe(
        `platform_app_${dev.appId.replaceAll('-', '_')}`,
      );
      expect(await databaseOf(dev.broker.central)).toBe('platform_central');
      expect(existsSync(join(folder, '.platform/db'))).toBe(false);
      expect(existsSync(join(folder, '.platform/central'))).toBe(false);

      const added = await fetchAs(ada)(`${dev.url}/_platform/api/functions/addNote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"body":"milk"}',
      });
      expect(added.status).toBe(200);
      // A second platform dev on the folder is refused, naming the first.
      await expect(devFor(folder, { watch: false, database: 'cluster' })).rejects.toThrow(
        `already running for this app folder at ${dev.url}`,
      );
    } finally {
      await dev.close();
    }
    expect(await gone(pid)).toBe(true);

    const { dev: again } = await devFor(folder, { watch: false, database: 'cluster' });
    try {
      const read = await fetchAs(ada)(`${again.url}/rest/v1/notes?select=body`);
      expect(await read.json()).toEqual([{ body: 'milk' }]);
    } finally {
      await again.close();
    }
  });

  it('serves a workspace from one server: the central store and a database per app', async () => {
    const root = join(dir.path, 'org');
    await writeFiles(join(root, 'a'), fixtureApp);
    await writeFiles(join(root, 'b'), fixtureApp);
    const ws = await startWorkspace({
      appDirs: [join(root, 'a'), join(root, 'b')],
      port: 0,
      watch: false,
      databaseUrl: '',
      database: 'cluster',
      snapshotPath: testSnapshotPath,
      authenticate: headerAuthenticate,
      logWriter: () => undefined,
    });
    let pid = 0;
    try {
      pid = postmasterOf(root);
      const [a, b] = ws.apps;
      expect(await databaseOf(a!.broker.db)).toBe(`platform_app_${a!.appId}`);
      expect(await databaseOf(b!.broker.db)).toBe(`platform_app_${b!.appId}`);
      expect(await databaseOf(a!.broker.central)).toBe('platform_central');
      expect(existsSync(join(root, 'a/.platform/cluster'))).toBe(false);
      const local = (url: string) => url.replace(/\/\/[a-z0-9-]+\.localhost:/, '//localhost:');
      const added = await fetchAs(ada)(`${local(a!.url)}/_platform/api/functions/addNote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"body":"only a"}',
      });
      expect(added.status).toBe(200);
      const rows = async (url: string) =>
        (await fetchAs(ada)(`${local(url)}/rest/v1/notes?select=body`)).json();
      expect(await rows(a!.url)).toEqual([{ body: 'only a' }]);
      expect(await rows(b!.url)).toEqual([]);
    } finally {
      await ws.close();
    }
    expect(await gone(pid)).toBe(true);
  });
});
