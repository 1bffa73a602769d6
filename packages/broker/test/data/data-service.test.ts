import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataService } from '../../src/data/data-service.ts';
import { anonymousCaller, systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { appWithDatabase } from '../helpers/db.ts';

const ALICE = userCaller('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
const BOB = userCaller('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');

const schema = `
create table todos (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid(),
  title text not null check (length(title) > 0),
  done boolean not null default false,
  meta jsonb,
  "odd ""name""" text
);
alter table todos enable row level security;
create policy todos_owner on todos for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create policy todos_system on todos for all to platform_system using (auth.is_system()) with check (auth.is_system());

create table posts (id serial primary key, body text not null, slug text unique);
alter table posts enable row level security;
create policy posts_read on posts for select using (true);
create policy posts_write on posts for insert to authenticated with check (true);

create table no_id (key text primary key);
`;

let app: Awaited<ReturnType<typeof appWithDatabase>>;
let data: DataService;

beforeAll(async () => {
  app = await appWithDatabase({ '001_schema.sql': schema });
  data = new DataService(app.db);
});
afterAll(() => app.cleanup());

describe('DataService', () => {
  it('creates, reads and updates rows as the caller', async () => {
    const todo = await data.create(ALICE, 'todos', {
      title: 'milk',
      meta: { tags: ['a'] },
      'odd "name"': 'x',
    });
    expect(todo).toMatchObject({
      title: 'milk',
      done: false,
      owner_id: ALICE.kind === 'user' && ALICE.userId,
    });
    expect(todo.meta).toEqual({ tags: ['a'] });
    expect(todo['odd "name"']).toBe('x');

    expect(await data.getById(ALICE, 'todos', todo.id, { select: ['title'] })).toEqual({
      title: 'milk',
    });
    expect(await data.getById(BOB, 'todos', todo.id)).toBeNull();
    const updated = await data.updateById(ALICE, 'todos', todo.id, { done: true });
    expect(updated.done).toBe(true);
    expect(
      await data.list(ALICE, 'todos', { where: { done: true }, select: ['id', 'done'] }),
    ).toEqual([{ id: todo.id, done: true }]);
    expect(await data.list(BOB, 'todos')).toEqual([]);
    expect((await data.list(systemCaller(), 'todos')).length).toBe(1);
    expect(await data.list(ALICE, 'todos', { where: { meta: null } })).toEqual([]);
  });

  it('maps failures to platform errors and writes nothing', async () => {
    await expect(data.list(ALICE, 'nope')).rejects.toMatchObject({
      code: 'TABLE_NOT_FOUND',
      status: 404,
    });
    await expect(data.list(ALICE, 'no_id')).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    await expect(data.list(ALICE, 'todos', { select: ['nope'] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(data.list(ALICE, 'todos', { where: { done: { gt: 1 } } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(data.list(ALICE, 'todos', { limit: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(data.create(ALICE, 'todos', { title: '' })).rejects.toMatchObject({
      code: 'DATA_CONSTRAINT_VIOLATION',
      status: 409,
      details: { constraint: 'todos_title_check' },
    });
    await expect(data.create(ALICE, 'todos', { done: true })).rejects.toMatchObject({
      code: 'DATA_CONSTRAINT_VIOLATION',
    });
    // RLS: Alice cannot create a row owned by Bob.
    await expect(
      data.create(ALICE, 'todos', {
        title: 'sneaky',
        owner_id: BOB.kind === 'user' ? BOB.userId : '',
      }),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED', status: 403 });
    await expect(data.getById(ALICE, 'todos', 'not-a-uuid')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      data.updateById(BOB, 'todos', 'aaaaaaaa-0000-4000-8000-000000000000', { done: true }),
    ).rejects.toMatchObject({ code: 'ROW_NOT_FOUND' });
    await expect(data.updateById(ALICE, 'todos', 'x', { id: 'y' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(data.create(anonymousCaller, 'posts', { body: 'hi' })).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
    });
    expect(await data.list(systemCaller(), 'todos', { where: { title: 'sneaky' } })).toEqual([]);
  });

  it('lets public RLS policies serve anonymous reads', async () => {
    const post = await data.create(ALICE, 'posts', { body: 'hello', slug: 'hello' });
    expect(post.id).toBeTypeOf('number');
    expect(await data.list(anonymousCaller, 'posts', { select: ['body'] })).toEqual([
      { body: 'hello' },
    ]);
    await expect(data.create(BOB, 'posts', { body: 'again', slug: 'hello' })).rejects.toMatchObject(
      {
        code: 'DATA_CONSTRAINT_VIOLATION',
        details: { constraint: 'posts_slug_key' },
      },
    );
    // Bob may insert but no update policy exists: the row is invisible to UPDATE.
    await expect(data.updateById(BOB, 'posts', post.id, { body: 'x' })).rejects.toMatchObject({
      code: 'ROW_NOT_FOUND',
    });
  });

  it('never lets identifiers escape their quotes', async () => {
    await expect(data.list(ALICE, 'todos"; drop table todos; --')).rejects.toMatchObject({
      code: 'TABLE_NOT_FOUND',
    });
    await expect(
      data.list(ALICE, 'todos', { select: ['id" from todos; --'] }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await data.list(systemCaller(), 'todos', { select: ['id'] })).toHaveLength(1);
  });
});
