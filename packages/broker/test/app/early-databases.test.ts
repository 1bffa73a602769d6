// `platform dev` begins opening an app folder's embedded databases before the broker's code has
// loaded. What users rely on: a warm folder starts with its data as before, a new folder or
// PostgreSQL is not touched early, and a start that fails leaves no database open or locked.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EarlyDatabases } from '../../src/app/early-databases.ts';
import {
  type DevOptions,
  ManifestInvalidError,
  startDev,
  startDevWith,
} from '../../src/app/start-dev.ts';
import { eventually } from '../e2e/fixture-app.ts';
import { headerAuthenticate, writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { workerThreads } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions: []
`;

let app: { path: string; remove: () => Promise<void> };
const noUrl = {};
const options = (): DevOptions => ({
  appDir: app.path,
  port: 0,
  databaseUrl: '',
  snapshotPath: testSnapshotPath,
  authenticate: headerAuthenticate,
  logWriter: () => undefined,
  watch: false,
});

beforeAll(async () => {
  app = await tempDir('early-databases-');
  await writeFiles(app.path, {
    'platform.yaml': manifest,
    'migrations/001_notes.sql': 'CREATE TABLE notes (body text NOT NULL);',
  });
});
afterAll(() => app?.remove());

describe('databases opened early', () => {
  it('open nothing in a new folder', async () => {
    const early = EarlyDatabases.open(app.path, noUrl);
    expect(early.take('app')).toBeUndefined();
    expect(early.take('central')).toBeUndefined();
  });

  it('are taken over by the start of a warm folder, with its data', async () => {
    const first = await startDev(options());
    await first.broker.db.query("INSERT INTO notes (body) VALUES ('kept')");
    await first.close();

    const threads = workerThreads();
    const early = EarlyDatabases.open(app.path, noUrl);
    const dev = await startDevWith(options(), early);
    try {
      // Both were taken: nothing is left for the start to close.
      expect(early.take('app')).toBeUndefined();
      expect(early.take('central')).toBeUndefined();
      expect((await dev.broker.db.query('SELECT body FROM notes')).rows).toEqual([
        { body: 'kept' },
      ]);
    } finally {
      await dev.close();
    }
    await eventually(async () => expect(workerThreads()).toBe(threads), 3000);
    expect(existsSync(join(app.path, '.platform', 'db.lock'))).toBe(false);
  });

  it('open nothing when the app runs on PostgreSQL', () => {
    const early = EarlyDatabases.open(app.path, { DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(early.take('app')).toBeUndefined();
    expect(early.take('central')).toBeUndefined();
  });

  it('are closed and unlocked when the start fails before taking them', async () => {
    await writeFile(join(app.path, 'platform.yaml'), 'schemaVersion: 3\nfunctions: {}\n');
    const threads = workerThreads();
    const early = EarlyDatabases.open(app.path, noUrl);
    await expect(startDevWith(options(), early)).rejects.toBeInstanceOf(ManifestInvalidError);
    await eventually(async () => expect(workerThreads()).toBe(threads), 3000);
    expect(existsSync(join(app.path, '.platform', 'db.lock'))).toBe(false);
    expect(existsSync(join(app.path, '.platform', 'central.lock'))).toBe(false);

    // The folder starts again.
    await writeFile(join(app.path, 'platform.yaml'), manifest);
    const dev = await startDevWith(options(), EarlyDatabases.open(app.path, noUrl));
    await dev.close();
  });
});
