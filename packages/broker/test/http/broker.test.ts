import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const BOB = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

const files = {
  'migrations/001_notes.sql': `
create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid(),
  body text not null check (length(body) <= 20)
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create policy notes_system on notes for all to platform_system using (auth.is_system()) with check (auth.is_system());
`,
  'functions/notes/add-note.ts': `
import { defineFunction, s } from '@platform/server';
import { clean } from './clean.ts';
export default defineFunction({
  input: s.object({ body: s.string() }),
  handler: async (ctx) => {
    ctx.log.info('adding a note', { length: ctx.input.body.length });
    return ctx.data.table('notes').create({ body: clean(ctx.input.body) });
  },
});
`,
  'functions/notes/clean.ts': 'export const clean = (text: string): string => text.trim();\n',
  'functions/notes/list-notes.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => ({ user: ctx.user, rows: await ctx.data.table('notes').list({ select: ['body'] }) }),
});
`,
  'functions/system/count.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => (await ctx.data.table('notes').list({ select: ['id'] })).length,
});
`,
  'functions/crash/crash.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ crash: s.boolean() }),
  handler: async (ctx) => {
    if (ctx.input.crash) globalThis.Deno.exit(7);
    return 'alive';
  },
});
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(files);
  await env.broker.addFunction({
    name: 'addNote',
    entrypoint: 'functions/notes/add-note.ts',
    access: 'user',
  });
  await env.broker.addFunction({
    name: 'listNotes',
    entrypoint: 'functions/notes/list-notes.ts',
    access: 'public',
  });
  await env.broker.addFunction({
    name: 'count',
    entrypoint: 'functions/system/count.ts',
    access: 'system',
  });
  await env.broker.addFunction({
    name: 'crash',
    entrypoint: 'functions/crash/crash.ts',
    access: 'public',
  });
});
afterAll(() => env.cleanup());

const call = (name: string, input: unknown, user?: string, init: RequestInit = {}) =>
  env.broker.app.request(`/_platform/api/functions/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { 'x-test-user': user } : {}) },
    body: JSON.stringify(input),
    ...init,
  });

describe('broker over HTTP with the real server SDK in Deno', () => {
  it('runs a user Function that writes data as the caller, with logs', async () => {
    const response = await call('addNote', { body: '  milk ' }, ALICE);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    const { result } = (await response.json()) as { result: { body: string; owner_id: string } };
    expect(result).toMatchObject({ body: 'milk', owner_id: ALICE });
    expect(env.broker.logs.list({ requestId: requestId ?? '' })).toMatchObject([
      { level: 'info', message: 'adding a note', fields: { length: 7 }, functionName: 'addNote' },
    ]);

    const mine = (await (await call('listNotes', {}, ALICE)).json()) as { result: unknown };
    expect(mine.result).toEqual({ user: { id: ALICE }, rows: [{ body: 'milk' }] });
    const theirs = (await (await call('listNotes', {}, BOB)).json()) as { result: unknown };
    expect(theirs.result).toEqual({ user: { id: BOB }, rows: [] });
  });

  it('enforces access', async () => {
    const anonymous = await call('addNote', { body: 'x' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    const system = await call('count', {}, ALICE);
    expect(system.status).toBe(403);
    expect(await system.json()).toMatchObject({ error: { code: 'FUNCTION_NOT_CALLABLE' } });
    // Direct invocation runs system Functions with the system identity (sees every row).
    const direct = await env.broker.invoker.call('count', {
      requestId: 'req_test',
      input: {},
      caller: { kind: 'anonymous' },
      origin: 'direct',
    });
    expect(await direct.json()).toEqual({ result: 1 });
  });

  it('answers bad requests with the error envelope', async () => {
    const cases: [Response, number, string][] = [
      [await call('nope', {}, ALICE), 404, 'FUNCTION_NOT_FOUND'],
      [await call('addNote', {}, ALICE, { body: '{"body":' }), 400, 'INVALID_REQUEST'],
      [
        await call('addNote', {}, ALICE, {
          headers: { 'content-type': 'text/plain', 'x-test-user': ALICE },
          body: 'hi',
        }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        await call('addNote', { body: 'x'.repeat(2 * 1024 * 1024) }, ALICE),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [await call('addNote', { body: 1 }, ALICE), 400, 'INVALID_INPUT'],
      [
        await call('addNote', { body: 'this note is far too long' }, ALICE),
        409,
        'DATA_CONSTRAINT_VIOLATION',
      ],
      [await env.broker.app.request('/nowhere'), 404, 'ROUTE_NOT_FOUND'],
      [await env.broker.app.request('/rest/v1/nope'), 404, 'TABLE_NOT_FOUND'],
      [
        await env.broker.app.request('/_platform/runtime/data/notes/list', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
        401,
        'INVOCATION_TOKEN_INVALID',
      ],
    ];
    for (const [response, status, code] of cases) {
      expect({ status: response.status, code }).toEqual({ status, code });
      const body = (await response.json()) as { error: { code: string; requestId: string } };
      expect(body.error.code).toBe(code);
      expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
    }
    // The failed write left nothing behind.
    const direct = await env.broker.invoker.call('count', {
      requestId: 'req_t2',
      input: {},
      caller: { kind: 'anonymous' },
      origin: 'direct',
    });
    expect(await direct.json()).toEqual({ result: 1 });
  });

  it('survives a crashing Function without disturbing others', async () => {
    const crashed = await call('crash', { crash: true });
    expect(crashed.status).toBe(500);
    expect(await crashed.json()).toMatchObject({ error: { code: 'FUNCTION_FAILED' } });
    expect((await call('listNotes', {}, ALICE)).status).toBe(200);
    expect(await (await call('crash', { crash: false })).json()).toEqual({ result: 'alive' });
    expect(env.lines.some((line) => line.includes('[crash] process exited'))).toBe(true);
  });

  it('serves real loopback HTTP, including the REST read under RLS', async () => {
    const url = env.broker.server.url;
    const response = await fetch(`${url}/_platform/api/functions/listNotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-user': ALICE },
      body: '{}',
    });
    expect(await response.json()).toMatchObject({ result: { rows: [{ body: 'milk' }] } });
    const rest = await fetch(`${url}/rest/v1/notes?select=body`, {
      headers: { 'x-test-user': ALICE },
    });
    expect(await rest.json()).toEqual([{ body: 'milk' }]);
    expect(await (await fetch(`${url}/rest/v1/notes?select=body`)).json()).toEqual([]);
  });
});
