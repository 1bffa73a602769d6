// The database files hold every row and the sign-in signing keys: `.platform/` and everything
// under `.platform/db` are the owner's only (folders 0700, files 0600), for a data directory
// restored from the fresh-cluster snapshot as for one whose modes were loosened before a start.
import { chmod, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Every path under `dir` (itself included) whose mode lets anyone but the owner in. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (path: string): Promise<void> => {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) found.push(`${path} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) {
      for (const name of await readdir(path)) await visit(join(path, name));
    }
  };
  await visit(dir);
  return found;
}

/** Gives every path under `dir` the given modes, as a copied or older data directory has. */
async function loosen(dir: string): Promise<void> {
  const info = await stat(dir);
  await chmod(dir, info.isDirectory() ? 0o777 : 0o666);
  if (info.isDirectory()) for (const name of await readdir(dir)) await loosen(join(dir, name));
}

describe('the modes of the database files', () => {
  it('keeps a data directory restored from the snapshot to its owner', async () => {
    const { broker, appDir, cleanup } = await brokerFor({});
    cleanups.push(cleanup);
    expect(broker.db.kind).toBe('pglite');
    expect(((await stat(join(appDir, '.platform'))).mode & 0o777).toString(8)).toBe('700');
    expect(await openToOthers(join(appDir, '.platform/db'))).toEqual([]);
  });

  it('fixes the modes of an existing data directory at start', async () => {
    const first = await brokerFor({});
    cleanups.push(first.cleanup);
    await first.broker.close();
    await loosen(join(first.appDir, '.platform'));
    const { cleanup } = await brokerFor({}, { appDir: first.appDir });
    cleanups.push(cleanup);
    expect(((await stat(join(first.appDir, '.platform'))).mode & 0o777).toString(8)).toBe('700');
    expect(await openToOthers(join(first.appDir, '.platform/db'))).toEqual([]);
  });
});
