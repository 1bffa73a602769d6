import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { PreparedStatements } from '../../src/db/prepared-statements.ts';

const opened: PGlite[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function session(max?: number): Promise<{ db: PGlite; statements: PreparedStatements }> {
  const db = await PGlite.create();
  opened.push(db);
  await db.exec('create table notes (id int primary key, body text, tags text[], meta jsonb)');
  return { db, statements: new PreparedStatements(db, max) };
}

const prepared = async (db: PGlite) =>
  (
    await db.query<{ name: string }>('select name from pg_prepared_statements order by name')
  ).rows.map((r) => r.name);

describe('PreparedStatements', () => {
  it('answers a repeated statement exactly as PGlite does, parameters and types included', async () => {
    const { db, statements } = await session();
    const insert = 'insert into notes values ($1, $2, $3, $4) returning *';
    const params = (id: number) => [
      id,
      `it's "quoted"`,
      ['a', 'b,c', null],
      { n: [1, { x: null }] },
    ];
    const [expected] = (await db.query<Record<string, unknown>>(insert, params(1))).rows;
    expect((await statements.query(insert, params(2))).rows).toEqual([{ ...expected, id: 2 }]);
    expect((await statements.query(insert, params(3))).rows).toEqual([{ ...expected, id: 3 }]);
    expect(await prepared(db)).toHaveLength(1);

    const at = new Date('2026-11-27T10:00:00.000Z');
    const select =
      'select $1::timestamptz as at, $2::boolean as yes, $3::int as none, $4::bigint as big';
    for (let i = 0; i < 7; i++) {
      expect((await statements.query(select, [at, true, null, 9])).rows).toEqual(
        (await db.query(select, [at, true, null, 9])).rows,
      );
    }
    const update = await statements.query('update notes set body = $1 where id > $2', ['x', 0]);
    expect(update).toEqual({ rows: [], rowCount: 3 });
  });

  it('sees a column added after the statement was prepared', async () => {
    const { db, statements } = await session();
    await statements.query('insert into notes (id, body) values ($1, $2)', [1, 'one']);
    const read = async () =>
      (await statements.query('select * from notes where id = $1', [1])).rows[0];
    expect(await read()).not.toHaveProperty('done');
    // Through PGlite directly (the worker's exec), then told; and through query itself.
    await db.exec('alter table notes add column done boolean default false');
    statements.forget();
    expect(await read()).toMatchObject({ done: false });
    await statements.query('alter table notes add column due date', []);
    expect(await read()).toMatchObject({ done: false, due: null });

    // Unseen, as DDL inside a database function would be: prepared again and run again.
    await db.exec('alter table notes add column rank int default 7');
    expect(await read()).toMatchObject({ rank: 7 });
    // Inside a transaction PostgreSQL has already aborted it: the error stands, the next run
    // after the rollback prepares afresh.
    await db.exec('alter table notes add column size int default 3');
    await db.exec('begin');
    await expect(read()).rejects.toMatchObject({ code: '0A000' });
    await db.exec('rollback');
    expect(await read()).toMatchObject({ rank: 7, size: 3 });
  });

  it('caches nothing for a statement that fails to prepare, and keeps working after errors', async () => {
    const { db, statements } = await session();
    await expect(statements.query('select nope from notes', [])).rejects.toMatchObject({
      code: '42703',
    });
    await expect(statements.query('select nope from notes', [])).rejects.toMatchObject({
      code: '42703',
    });
    await statements.query('insert into notes (id) values ($1)', [1]);
    await expect(statements.query('insert into notes (id) values ($1)', [1])).rejects.toMatchObject(
      {
        code: '23505',
      },
    );
    expect((await statements.query('select count(*)::int as n from notes', [])).rows).toEqual([
      { n: 1 },
    ]);
    expect(await prepared(db)).toHaveLength(2);
  });

  it('closes the least recently used statement beyond its limit', async () => {
    const { db, statements } = await session(2);
    await statements.query('select 1 as a', []);
    await statements.query('select 2 as b', []);
    await statements.query('select 1 as a', []);
    await statements.query('select 3 as c', []);
    // "select 2" was closed to make room; the other two stay prepared.
    expect(await prepared(db)).toEqual(['platform_1', 'platform_3']);
    expect((await statements.query('select 2 as b', [])).rows).toEqual([{ b: 2 }]);
    expect(await prepared(db)).toHaveLength(2);
  });
});
