import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataService } from '../../src/data/data-service.ts';
import { anonymousCaller, systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { openPostgres } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const ALICE = userCaller('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
const BOB = userCaller('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');

describe('a real PostgreSQL through DATABASE_URL', () => {
  let server: PostgresServer;
  let app: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    server = await startPostgres();
    app = await tempDir('broker-app-');
    await mkdir(join(app.path, 'migrations'));
    await writeFile(
      join(app.path, 'migrations', '001.sql'),
      `create table notes (id uuid primary key default gen_random_uuid(), owner_id uuid default auth.uid(), body text not null);
       alter table notes enable row level security;
       create policy own on notes for all to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
       create policy sys on notes for all to platform_system using (auth.is_system()) with check (auth.is_system());`,
    );
  });
  afterAll(async () => {
    await app?.remove();
    await server?.stop();
  });

  it('serves the same interface, RLS and migrations as PGlite', async () => {
    const first = await openPostgres(server.url, app.path);
    try {
      expect(first.db.kind).toBe('postgres');
      expect(first.migrations.applied).toEqual(['001.sql']);
      const data = new DataService(first.db);
      await data.create(ALICE, 'notes', { body: 'a' });
      await data.create(BOB, 'notes', { body: 'b' });
      expect(await data.list(ALICE, 'notes', { select: ['body'] })).toEqual([{ body: 'a' }]);
      expect(await data.list(anonymousCaller, 'notes')).toEqual([]);
      expect(await data.list(systemCaller(), 'notes', { select: ['body'] })).toHaveLength(2);
      await expect(data.create(ALICE, 'notes', { body: null })).rejects.toMatchObject({
        code: 'DATA_CONSTRAINT_VIOLATION',
      });
      // Transactions run in parallel on pooled connections and stay isolated.
      const counts = await Promise.all(
        [ALICE, BOB, ALICE, BOB].map((caller) =>
          data.list(caller, 'notes').then((rows) => rows.length),
        ),
      );
      expect(counts).toEqual([1, 1, 1, 1]);
    } finally {
      await first.db.close();
    }
    const second = await openPostgres(server.url, app.path);
    try {
      expect(second.migrations.applied).toEqual([]);
    } finally {
      await second.db.close();
    }
  });

  it('runs exclusive calls with one key one after another, in a transaction each', async () => {
    const { db } = await openPostgres(server.url, app.path);
    try {
      const order: string[] = [];
      const run = (key: string, name: string, ms: number) =>
        db.exclusive(key, async (q) => {
          order.push(`${name} in`);
          await q.query('select pg_sleep($1::float / 1000)', [ms]);
          order.push(`${name} out`);
        });
      // a holds the key before b and c ask (which of two waiting callers the lock takes first
      // is the server's choice, not an order this promises).
      const a = run('k', 'a', 100);
      while (!order.includes('a in')) await new Promise((resolve) => setTimeout(resolve, 5));
      await Promise.all([a, run('k', 'b', 0), run('other', 'c', 0)]);
      // c holds another key and need not wait; b waits for a.
      expect(order.indexOf('b in')).toBeGreaterThan(order.indexOf('a out'));
      expect(order.indexOf('c out')).toBeLessThan(order.indexOf('a out'));
      await expect(
        db.exclusive('k', async (q) => {
          await q.query("insert into notes (owner_id, body) values (null, 'gone')");
          throw new Error('after the write');
        }),
      ).rejects.toThrow('after the write');
      expect((await db.query("select 1 from notes where body = 'gone'")).rows).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('closes once: a second close waits for the first, as on PGlite', async () => {
    const { db } = await openPostgres(server.url, app.path);
    await Promise.all([db.close(), db.close()]);
    await expect(db.close()).resolves.toBeUndefined();
  });
});
