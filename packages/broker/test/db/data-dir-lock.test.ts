// Two brokers on one PGlite data directory in the same process (startBroker): the second is
// refused before it opens the database or starts anything, and the first keeps working. Closing
// the first frees the directory for the next start.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { fixtureApp } from '../e2e/fixture-app.ts';
import { devFor } from '../e2e/helpers.ts';
import { brokerFor, headerAuthenticate, writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { workerThreads } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const cleanups: (() => Promise<void>)[] = [];
// Last opened, first closed: a folder is removed only after the platform dev running in it
// stopped, whose Function processes and database may still be writing there until then.
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const startOn = (appDir: string): Promise<Broker> =>
  startBroker({
    appDir,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    logWriter: () => undefined,
    authenticate: headerAuthenticate,
  });

describe('the data directory lock', () => {
  it('refuses a second broker on the same data directory before it opens the database', async () => {
    const first = await brokerFor({});
    cleanups.push(first.cleanup);
    const threads = workerThreads();
    await expect(startOn(first.appDir)).rejects.toThrow(
      `already running for this app folder at ${first.broker.server.url}`,
    );
    expect(workerThreads()).toBe(threads);
    // The first broker's database is untouched and open.
    const { rows } = await first.broker.db.query<{ one: number }>('select 1 as one');
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('frees the data directory when the broker closes', async () => {
    const first = await brokerFor({});
    cleanups.push(first.cleanup);
    await first.broker.close();
    const again = await startOn(first.appDir);
    cleanups.push(() => again.close());
    expect((await again.db.query('select 1 as one')).rows).toHaveLength(1);
  });

  it("a refused second platform dev leaves the first one's dev.json in place", async () => {
    const dir = await tempDir('dev-lock-');
    cleanups.push(dir.remove);
    await writeFiles(dir.path, fixtureApp);
    const { dev } = await devFor(dir.path, { watch: false });
    cleanups.push(() => dev.close());
    const statePath = join(dir.path, '.platform/dev.json');
    const state = await readFile(statePath, 'utf8');
    await expect(devFor(dir.path, { watch: false })).rejects.toThrow(
      `already running for this app folder at ${dev.url}`,
    );
    expect(await readFile(statePath, 'utf8')).toBe(state);
  });
});
