import { mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/db/database.ts';
import { PgliteDatabase } from '../../src/db/pglite-database.ts';
import { runAs } from '../../src/db/run-as.ts';
import { anonymousCaller, systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { appWithDatabase, openTestCentral, reopen, testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const USER = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

const notes = `
create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid(),
  body text not null,
  created_at timestamptz not null default now()
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create policy notes_system on notes for all to platform_system
  using (auth.is_system()) with check (auth.is_system());
`;

describe('PgliteDatabase', () => {
  it('runs queries in a worker and keeps the event loop free', async () => {
    const app = await appWithDatabase();
    cleanups.push(app.cleanup);
    const { db } = app;
    expect(db.kind).toBe('pglite');
    expect((await db.query<{ n: number }>('select $1::int + 1 as n', [41])).rows).toEqual([
      { n: 42 },
    ]);
    expect(
      (await db.query<{ c: number }>('select count(*) as c from pg_class')).rows[0]?.c,
    ).toBeTypeOf('number');

    // A heavy query runs on the worker: timers on this thread keep firing meanwhile.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    await db.query('select count(*) from generate_series(1, 3000000)');
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(2);
  });

  it('keeps a small buffer cache, so an idle embedded database holds little memory', async () => {
    const app = await appWithDatabase();
    cleanups.push(app.cleanup);
    const { rows } = await app.db.query<{ shared_buffers: string }>('show shared_buffers');
    expect(rows).toEqual([{ shared_buffers: '32MB' }]);
  });

  it('gives the central store a smaller buffer cache than an app database', async () => {
    const central = await openTestCentral();
    cleanups.push(() => central.close());
    const { rows } = await central.query<{ shared_buffers: string }>('show shared_buffers');
    expect(rows).toEqual([{ shared_buffers: '8MB' }]);
  });

  it('refuses a buffer cache that is not a whole number of MB from 1, before starting a worker', async () => {
    const dataDir = await tempDir('pglite-buffers-');
    cleanups.push(dataDir.remove);
    for (const bufferCacheMb of [0, 1.5, Number.NaN]) {
      await expect(PgliteDatabase.open({ dataDir: dataDir.path, bufferCacheMb })).rejects.toThrow(
        /bufferCacheMb must be a whole number from 1/,
      );
    }
    // The directory's lock was released: a valid open takes it.
    const db = await PgliteDatabase.open({
      dataDir: dataDir.path,
      snapshotPath: testSnapshotPath,
      bufferCacheMb: 4,
      vector: false,
    });
    cleanups.push(() => db.close());
    const { rows } = await db.query<{ shared_buffers: string }>('show shared_buffers');
    expect(rows).toEqual([{ shared_buffers: '4MB' }]);
  });

  it('runs statements of ahead() before waiting ones, never inside a transaction', async () => {
    const app = await appWithDatabase();
    cleanups.push(app.cleanup);
    const { db } = app;
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db.transaction(async (t) => {
      await t.query('select 1');
      await held;
      await t.query('select 2');
      order.push('transaction');
    });
    const normal = db.query('select 3').then(() => order.push('normal'));
    const ahead = db
      .ahead()
      .query<{ n: number }>('select 4 as n')
      .then(({ rows }) => order.push(`ahead ${rows[0]?.n}`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual([]);
    release();
    await Promise.all([tx, normal, ahead]);
    expect(order).toEqual(['transaction', 'ahead 4', 'normal']);
    expect(db.ahead().kind).toBe('pglite');
  });

  it('holds the one session for an exclusive call, whose statements commit one by one', async () => {
    const app = await appWithDatabase({
      '001_t.sql': 'create table t (id int primary key);',
    });
    cleanups.push(app.cleanup);
    const { db } = app;
    const order: string[] = [];
    const first = db.exclusive('k', async (q) => {
      await q.query('insert into t values (1)');
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push('exclusive');
    });
    const waiting = db.query('select count(*)::int as n from t').then(({ rows }) => {
      order.push(`query saw ${rows[0]?.n}`);
    });
    await Promise.all([first, waiting]);
    expect(order).toEqual(['exclusive', 'query saw 1']);
    // No transaction around it: a failure after the write keeps the write, as documented.
    await expect(
      db.exclusive('k', async (q) => {
        await q.query('insert into t values (2)');
        throw new Error('after the write');
      }),
    ).rejects.toThrow('after the write');
    expect((await db.query('select id from t order by id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('serialises transactions and rolls back on failure', async () => {
    const app = await appWithDatabase({
      '001_t.sql': 'create table t (id int primary key, v text);',
    });
    cleanups.push(app.cleanup);
    const { db } = app;
    const order: string[] = [];
    const a = db.transaction(async (tx) => {
      await tx.query("insert into t values (1, 'a')");
      await new Promise((r) => setTimeout(r, 30));
      order.push('a');
    });
    const b = db.query('select count(*) as c from t').then((r) => {
      order.push(`b:${String(r.rows[0]?.c)}`);
    });
    await Promise.all([a, b]);
    // b waited for a to commit, so it sees the row.
    expect(order).toEqual(['a', 'b:1']);

    await expect(
      db.transaction(async (tx) => {
        await tx.query("insert into t values (2, 'b')");
        await tx.query("insert into t values (1, 'dup')");
      }),
    ).rejects.toBeInstanceOf(DatabaseError);
    expect((await db.query('select id from t order by id')).rows).toEqual([{ id: 1 }]);
    const err = await db.query("insert into t values (1, 'x')").catch((e: unknown) => e);
    expect(err).toMatchObject({ sqlState: '23505', constraint: 't_pkey' });
  });

  it('answers a statement it has run before with the columns a migration added since', async () => {
    const app = await appWithDatabase({
      '001_t.sql': 'create table t (id int primary key, v text);',
    });
    cleanups.push(app.cleanup);
    const { db } = app;
    await db.query("insert into t values (1, 'a')");
    const read = () => db.query('select * from t where id = $1', [1]).then((r) => r.rows);
    expect(await read()).toEqual([{ id: 1, v: 'a' }]);
    await db.transaction((tx) => tx.exec('alter table t add column done boolean default false'));
    expect(await read()).toEqual([{ id: 1, v: 'a', done: false }]);
    await db.exec('alter table t add column due int');
    expect(await read()).toEqual([{ id: 1, v: 'a', done: false, due: null }]);
  });
  it('bootstraps auth functions and applies RLS per caller', async () => {
    const app = await appWithDatabase({ '001_notes.sql': notes });
    cleanups.push(app.cleanup);
    const { db } = app;
    expect(app.migrations.applied).toEqual(['001_notes.sql']);
    await runAs(db, userCaller(USER), (tx) => tx.query("insert into notes (body) values ('mine')"));
    await runAs(db, userCaller(OTHER), (tx) =>
      tx.query("insert into notes (body) values ('theirs')"),
    );
    const mine = await runAs(db, userCaller(USER), (tx) =>
      tx.query(
        'select body, auth.uid() as uid, auth.role() as role, auth.is_system() as sys, auth.connection_id() as conn, auth.jwt() as jwt from notes',
      ),
    );
    expect(mine.rows).toEqual([
      {
        body: 'mine',
        uid: USER,
        role: 'authenticated',
        sys: false,
        conn: null,
        jwt: { sub: USER, role: 'authenticated' },
      },
    ]);
    const anon = await runAs(db, anonymousCaller, async (tx) => ({
      rows: (await tx.query('select body from notes')).rows,
      auth: (await tx.query('select auth.uid() as uid, auth.role() as role')).rows,
    }));
    expect(anon).toEqual({ rows: [], auth: [{ uid: null, role: 'anon' }] });
    const system = await runAs(db, systemCaller('conn_1'), (tx) =>
      tx.query<{ n: number; uid: null; role: string; sys: boolean; conn: string }>(
        'select count(*) as n, auth.uid() as uid, auth.role() as role, auth.is_system() as sys, auth.connection_id() as conn from notes',
      ),
    );
    expect(system.rows).toEqual([{ n: 2, uid: null, role: 'system', sys: true, conn: 'conn_1' }]);
    // Settings end with the transaction.
    const after = await db.query(
      'select current_user as u, auth.uid() as uid, auth.role() as role, auth.is_system() as sys, auth.connection_id() as conn',
    );
    expect(after.rows).toEqual([
      { u: 'postgres', uid: null, role: 'anon', sys: false, conn: null },
    ]);
  });

  it('makes a new cluster, and every directory from its snapshot, with only the database it serves', async () => {
    const dir = await tempDir('initdb-');
    cleanups.push(dir.remove);
    const snapshotPath = join(dir.path, 'cluster.tar');
    const open = (name: string) =>
      PgliteDatabase.open({ dataDir: join(dir.path, name), snapshotPath, vector: false });
    const databases = async (db: PgliteDatabase) =>
      (await db.query<{ datname: string }>('select datname from pg_database')).rows;
    const created = await open('first');
    try {
      expect(created.openInfo.how).toBe('initdb');
      expect(await databases(created)).toEqual([{ datname: 'postgres' }]);
    } finally {
      await created.close();
    }
    const copied = await open('second');
    try {
      expect(copied.openInfo.how).toBe('snapshot');
      expect(await databases(copied)).toEqual([{ datname: 'postgres' }]);
      await copied.exec('create table t (id int primary key)');
      expect((await copied.query('insert into t values (1) returning id')).rows).toEqual([
        { id: 1 },
      ]);
    } finally {
      await copied.close();
    }
  });

  it('unpacks a snapshot into a new directory whole, replacing what an interrupted start left', async () => {
    const dir = await tempDir('unpack-');
    cleanups.push(dir.remove);
    const dataDir = join(dir.path, 'db');
    // An earlier start that died while unpacking left its folder behind.
    await mkdir(`${dataDir}.unpacking/base`, { recursive: true });
    await writeFile(`${dataDir}.unpacking/PG_VERSION`, '17\n');
    const open = () =>
      PgliteDatabase.open({ dataDir, snapshotPath: testSnapshotPath, vector: false });
    const db = await open();
    try {
      expect(db.openInfo.how).toBe('snapshot');
      await db.exec('create table t (id int primary key)');
      await db.query('insert into t values (1)');
    } finally {
      await db.close();
    }
    await expect(stat(`${dataDir}.unpacking`)).rejects.toMatchObject({ code: 'ENOENT' });
    const again = await open();
    try {
      expect(again.openInfo.how).toBe('opened');
      expect((await again.query('select id from t')).rows).toEqual([{ id: 1 }]);
    } finally {
      await again.close();
    }
  });

  it('refuses a directory that holds files but no database, and leaves it as it was', async () => {
    const dir = await tempDir('not-a-cluster-');
    cleanups.push(dir.remove);
    const dataDir = join(dir.path, 'db');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'notes.txt'), 'mine');
    await expect(
      PgliteDatabase.open({ dataDir, snapshotPath: testSnapshotPath, vector: false }),
    ).rejects.toThrow(`${dataDir} holds files but no database (it has no PG_VERSION)`);
    expect(await readdir(dataDir)).toEqual(['notes.txt']);
    expect(await readdir(dir.path)).toEqual(['db']);
  });

  it('refuses a damaged snapshot and leaves no directory behind', async () => {
    const dir = await tempDir('damaged-');
    cleanups.push(dir.remove);
    const snapshotPath = join(dir.path, 'cut.tar');
    await writeFile(snapshotPath, (await readFile(testSnapshotPath)).subarray(0, 1_000_000));
    const dataDir = join(dir.path, 'db');
    await expect(PgliteDatabase.open({ dataDir, snapshotPath, vector: false })).rejects.toThrow(
      `The database snapshot ${snapshotPath} is damaged`,
    );
    expect((await readdir(dir.path)).sort()).toEqual(['cut.tar']);
  });

  it('persists across restarts and applies each migration once', async () => {
    const app = await appWithDatabase({ '001_t.sql': 'create table t (id int primary key);' });
    cleanups.push(app.cleanup);
    await app.db.query('insert into t values (7)');
    await app.db.close();
    const again = await reopen(app.appDir);
    try {
      expect(again.migrations.applied).toEqual([]);
      expect((await again.db.query('select id from t')).rows).toEqual([{ id: 7 }]);
      expect((again.db as PgliteDatabase).openInfo.how).toBe('opened');
    } finally {
      await again.db.close();
    }
  });

  it('leaves nothing behind when a migration fails', async () => {
    const app = await appWithDatabase({ '001_ok.sql': 'create table ok (id int primary key);' });
    cleanups.push(app.cleanup);
    await app.db.close();
    await writeFile(
      join(app.appDir, 'migrations', '002_bad.sql'),
      'create table half (id int); select no_such_function();',
    );
    await expect(reopen(app.appDir)).rejects.toThrow(/Migration 002_bad.sql failed/);
    await unlink(join(app.appDir, 'migrations', '002_bad.sql'));
    const again = await reopen(app.appDir);
    try {
      const { rows } = await again.db.query(
        "select table_name from information_schema.tables where table_schema = 'public' order by 1",
      );
      expect(rows).toEqual([{ table_name: 'ok' }]);
      expect((await again.db.query('select name from platform.migrations')).rows).toEqual([
        { name: '001_ok.sql' },
      ]);
    } finally {
      await again.db.close();
    }
  });
});
