import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingLine } from '../../src/cli/dev.ts';
import { DataDirLockedError } from '../../src/db/data-dir-lock.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { PrivateCluster } from '../../src/db/private-cluster.ts';
import { isProcessRunning } from '../../src/kernel/process-mark.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let cache: Awaited<ReturnType<typeof tempDir>>;
let folder: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  cache = await tempDir('cluster-cache-');
  folder = await tempDir('cluster-app-');
});
afterAll(async () => {
  await folder?.remove();
  await cache?.remove();
});

const gone = async (pid: number) => {
  for (let i = 0; i < 200 && isProcessRunning(pid); i++)
    await new Promise((r) => setTimeout(r, 25));
  return !isProcessRunning(pid);
};

describe('a private PostgreSQL cluster', () => {
  const dir = () => join(folder.path, '.platform', 'cluster');

  it('starts from the template, on a socket only, with owner-only files, and keeps its rows', async () => {
    const cluster = await PrivateCluster.start({ dir: dir(), cacheDir: cache.path });
    expect(cluster.how).toBe('template');
    const db = await PostgresDatabase.connect(cluster.url);
    try {
      const { rows } = await db.query<{ listen: string; socket: string; buffers: string }>(
        `SELECT current_setting('listen_addresses') AS listen,
                current_setting('unix_socket_permissions') AS socket,
                current_setting('shared_buffers') AS buffers`,
      );
      expect(rows[0]).toEqual({ listen: '', socket: '0700', buffers: '16MB' });
      await db.exec('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
    } finally {
      await db.close();
    }
    const hba = (await readFile(join(dir(), 'data', 'pg_hba.conf'), 'utf8')).trim();
    expect(hba).toBe('local all all trust');
    expect((await stat(dir())).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir(), 'data'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir(), 'data', 'pg_hba.conf'))).mode & 0o777).toBe(0o600);
    // The template stays in the machine cache for the next new folder.
    const templates = (await import('node:fs')).readdirSync(cache.path);
    expect(templates.some((name) => /^postgres-.*-cluster$/.test(name))).toBe(true);

    await expect(PrivateCluster.start({ dir: dir(), cacheDir: cache.path })).rejects.toThrow(
      DataDirLockedError,
    );
    await cluster.close();
    expect(await gone(cluster.pid)).toBe(true);
    expect(existsSync(`${dir()}.lock`)).toBe(false);

    const again = await PrivateCluster.start({ dir: dir(), cacheDir: cache.path });
    try {
      expect(again.how).toBe('opened');
      const db2 = await PostgresDatabase.connect(again.url);
      expect((await db2.query('SELECT n FROM kept')).rows).toEqual([{ n: 7 }]);
      await db2.close();
    } finally {
      await again.close();
    }
  });

  it('stops the server a start that was killed left running, and starts its own', async () => {
    const first = await PrivateCluster.start({ dir: dir(), cacheDir: cache.path });
    // As after a SIGKILL of `platform dev`: the lock's holder is gone, its server is not.
    await first.lock.release();
    expect(isProcessRunning(first.pid)).toBe(true);
    const second = await PrivateCluster.start({ dir: dir(), cacheDir: cache.path });
    try {
      expect(await gone(first.pid)).toBe(true);
      expect(second.pid).not.toBe(first.pid);
      const db = await PostgresDatabase.connect(second.url);
      expect((await db.query('SELECT n FROM kept')).rows).toEqual([{ n: 7 }]);
      await db.close();
    } finally {
      await second.close();
      await first.close();
    }
  });

  it("never stops another folder's server that a stale pid file happens to name", async () => {
    const other = await tempDir('cluster-other-');
    const otherDir = join(other.path, '.platform', 'cluster');
    const running = await PrivateCluster.start({ dir: otherDir, cacheDir: cache.path });
    try {
      // This folder's pid file, left by a killed run, names a pid that is now the other server.
      const stale = (await readFile(join(otherDir, 'data', 'postmaster.pid'), 'utf8')).split('\n');
      await writeFile(join(dir(), 'data', 'postmaster.pid'), stale.join('\n'));
      await PrivateCluster.start({ dir: dir(), cacheDir: cache.path }).then(
        (started) => started.close(),
        () => undefined,
      );
      expect(isProcessRunning(running.pid)).toBe(true);
      const db = await PostgresDatabase.connect(running.url);
      expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await db.close();
    } finally {
      await running.close();
      await other.remove();
    }
  });

  it('tells of the initdb a machine runs once, and of nothing when the template is cached', async () => {
    const emptyCache = await tempDir('cluster-empty-cache-');
    const folders = [await tempDir('cluster-first-'), await tempDir('cluster-second-')];
    try {
      const told: number[] = [];
      for (const [i, folder] of folders.entries()) {
        const started = await PrivateCluster.start({
          dir: join(folder.path, '.platform', 'cluster'),
          cacheDir: emptyCache.path,
          onPreparing: () => told.push(i),
        });
        expect(started.how).toBe('template');
        await started.close();
      }
      expect(told).toEqual([0]);
      expect(preparingLine('the private PostgreSQL cluster')).toBe(
        'Preparing the private PostgreSQL cluster (once per machine, a few seconds)...',
      );
    } finally {
      for (const folder of folders) await folder.remove();
      await emptyCache.remove();
    }
  });
});
