import { afterAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor, headerAuthenticate } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';

const ALICE = userCaller('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a broker restart', () => {
  it('keeps data and files and applies no migration twice', async () => {
    const env = await brokerFor({
      'migrations/001_t.sql': 'create table items (id serial primary key, name text);',
    });
    cleanups.push(env.cleanup);
    expect(env.broker.migrations.applied).toEqual(['001_t.sql']);
    await env.broker.data.create(ALICE, 'items', { name: 'kept' });
    const file = await env.broker.files.upload(ALICE, {
      data: new TextEncoder().encode('hello'),
      name: 'a.txt',
      contentType: 'text/plain',
    });
    await env.broker.close();

    let again: Broker | undefined;
    try {
      again = await startBroker({
        appDir: env.appDir,
        sdkVersion: '2.6.0',
        // The same database: PGlite in the folder, or the private cluster the first start had.
        databaseUrl: env.databaseUrl,
        snapshotPath: testSnapshotPath,
        logWriter: () => undefined,
        authenticate: headerAuthenticate,
      });
      expect(again.migrations.applied).toEqual([]);
      expect(await again.data.list(ALICE, 'items', { select: ['name'] })).toEqual([
        { name: 'kept' },
      ]);
      const { file: info, data } = await again.files.download(ALICE, file.ref);
      expect(new TextDecoder().decode(data)).toBe('hello');
      expect(info).toEqual(file);
    } finally {
      await again?.close();
    }
  });
});
