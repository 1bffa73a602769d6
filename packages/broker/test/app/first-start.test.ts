// The first `platform dev` on a machine whose cache holds no prepared database says, before the
// seconds it spends preparing one, what it does and that it happens once; a later start in a new
// folder, the cache now warm, says nothing of the kind.
import { copyFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DevServer, startDev } from '../../src/app/start-dev.ts';
import { startWorkspace } from '../../src/app/start-workspace.ts';
import { preparingLine } from '../../src/cli/dev.ts';
import { headerAuthenticate, writeFiles } from '../helpers/broker.ts';
import { privateSnapshot } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals.reverse()) await remove();
});

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions: []
`;

/** A machine cache with the fresh cluster only: no prepared snapshot of either schema. */
async function emptyCache(): Promise<string> {
  // initdb is what a machine does first; it is not the subject here.
  const fresh = await privateSnapshot();
  removals.push(fresh.remove);
  const cache = await tempDir('first-start-cache-');
  removals.push(cache.remove);
  const snapshotPath = join(cache.path, basename(fresh.path));
  await copyFile(fresh.path, snapshotPath);
  return snapshotPath;
}

/** A new app folder started with the machine cache `snapshotPath`; the lines it printed. */
async function start(snapshotPath: string): Promise<string[]> {
  const dir = await tempDir('first-start-');
  removals.push(dir.remove);
  await writeFiles(dir.path, { 'platform.yaml': manifest });
  const lines: string[] = [];
  const dev: DevServer = await startDev({
    appDir: dir.path,
    port: 0,
    databaseUrl: '',
    snapshotPath,
    watch: false,
    authenticate: headerAuthenticate,
    logWriter: (line) => lines.push(line),
    onPreparing: (work) => lines.push(preparingLine(work)),
  });
  await dev.close();
  return lines;
}

describe('a first start on a machine', () => {
  it('prints a line while it prepares the embedded database, once, and none when the cache is warm', async () => {
    const snapshotPath = await emptyCache();
    const first = await start(snapshotPath);
    const preparing = first.filter((line) => line.startsWith('Preparing '));
    // Both databases were prepared; the start says so once.
    expect(preparing).toEqual([
      'Preparing the embedded database (once per machine, about 10 s)...',
    ]);

    const warm = await start(snapshotPath);
    expect(warm.filter((line) => line.startsWith('Preparing '))).toEqual([]);
  });

  it('prints the line once for a workspace whose store and apps are all prepared', async () => {
    const snapshotPath = await emptyCache();
    const dir = await tempDir('first-start-ws-');
    removals.push(dir.remove);
    await writeFiles(dir.path, { 'a/platform.yaml': manifest, 'b/platform.yaml': manifest });
    const lines: string[] = [];
    const ws = await startWorkspace({
      appDirs: [join(dir.path, 'a'), join(dir.path, 'b')],
      port: 0,
      watch: false,
      databaseUrl: '',
      snapshotPath,
      authenticate: headerAuthenticate,
      logWriter: (line) => lines.push(line),
      onPreparing: (work) => lines.push(preparingLine(work)),
    });
    await ws.close();
    expect(lines.filter((line) => line.startsWith('Preparing '))).toHaveLength(1);
  });
});
