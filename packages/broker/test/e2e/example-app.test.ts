// The example app under `platform dev` in-process, driven over real HTTP with the browser SDK
// from Node (the server SDK runs inside the Deno Functions): calls, streams, routes, RLS, files,
// and a restart that keeps data and files.
import { createPlatform, isPlatformError } from '@platform/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { ada, bob, copyExample, devFor, fetchAs } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;

beforeAll(async () => {
  app = await copyExample();
  ({ dev } = await devFor(app.path, { watch: false }));
});

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const sdkAs = (user?: string) => createPlatform({ appUrl: dev.url, fetch: fetchAs(user) });

/** A call whose result the test knows the shape of (the app registers no types). */
const call = async <T>(
  platform: ReturnType<typeof sdkAs>,
  name: string,
  input: Record<string, unknown>,
): Promise<T> => (await platform.functions.call(name, input)) as T;

interface Todo {
  id: string;
  title: string;
  done: boolean;
  owner_id: string;
  attachment_id: string | null;
}

describe('the example app through the browser SDK (Node)', () => {
  it('serves public Functions to anonymous visitors and refuses user Functions', async () => {
    const platform = sdkAs();
    expect(await platform.auth.currentUser()).toBeNull();
    const stats = await call<{ signedIn: boolean; tips: string[] }>(platform, 'publicStats', {});
    expect(stats).toMatchObject({ signedIn: false, via: 'call' });
    expect(stats.tips).toHaveLength(3);
    const error = await platform.functions.call('listTodos', {}).catch((e: unknown) => e);
    expect(isPlatformError(error, 'AUTH_REQUIRED')).toBe(true);
  });

  it('creates, lists and toggles todos under RLS', async () => {
    const asAda = sdkAs(ada);
    const todo = await call<Todo>(asAda, 'createTodo', { title: '  Buy   milk ' });
    expect(todo).toMatchObject({ title: 'Buy milk', done: false, owner_id: ada });
    const toggled = await call<Todo>(asAda, 'toggleTodo', { id: todo.id });
    expect(toggled.done).toBe(true);
    const { todos } = await call<{ todos: Todo[] }>(asAda, 'listTodos', {});
    expect(todos.map((t) => t.id)).toContain(todo.id);
    // Bob sees none of Ada's rows, and cannot reach them by id.
    const asBob = sdkAs(bob);
    expect((await call<{ todos: Todo[] }>(asBob, 'listTodos', {})).todos).toEqual([]);
    const hidden = await asBob.functions.call('toggleTodo', { id: todo.id }).catch((e) => e);
    expect(hidden).toMatchObject({ code: 'TODO_NOT_FOUND', status: 404 });
  });

  it('attaches a file, replaces it as a new generation, and reads it back', async () => {
    const asAda = sdkAs(ada);
    const todo = await call<Todo>(asAda, 'createTodo', { title: 'With a file' });
    const base64 = Buffer.from('hello file').toString('base64');
    const first = await call<{ generation: number; contentType: string }>(asAda, 'attachFile', {
      todoId: todo.id,
      name: 'a.txt',
      contentType: 'text/plain',
      base64,
    });
    expect(first).toMatchObject({ generation: 1, contentType: 'text/plain', size: 10 });
    const second = await call<{ generation: number }>(asAda, 'attachFile', {
      todoId: todo.id,
      name: 'a.txt',
      contentType: 'text/plain',
      base64,
    });
    expect(second.generation).toBe(2);
    const read = await call<{ base64: string; name: string }>(asAda, 'readAttachment', {
      todoId: todo.id,
    });
    expect(Buffer.from(read.base64, 'base64').toString()).toBe('hello file');
    // Bob cannot attach to Ada's todo, and no file is left behind by the refusal.
    const before = await dev.broker.db.query('select count(*)::int as n from platform.files');
    const refused = await sdkAs(bob)
      .functions.call('attachFile', { todoId: todo.id, name: 'b', contentType: 'x/y', base64 })
      .catch((e) => e);
    expect(refused).toMatchObject({ code: 'TODO_NOT_FOUND' });
    const after = await dev.broker.db.query('select count(*)::int as n from platform.files');
    expect(after.rows).toEqual(before.rows);
  });

  it('streams a Function through /stream', async () => {
    const asAda = sdkAs(ada);
    await asAda.functions.call('createTodo', { title: 'Streamed "quoted"' });
    const decoder = new TextDecoder();
    let csv = '';
    for await (const chunk of asAda.functions.stream('exportTodos', {})) {
      csv += decoder.decode(chunk, { stream: true });
    }
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('title,done,created_at');
    expect(csv).toContain('"Streamed ""quoted"""');
  });

  it('never lets a browser call a system Function', async () => {
    const error = await sdkAs(ada)
      .functions.call('sendReminder', { todoId: ada })
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'FUNCTION_NOT_CALLABLE', status: 403 });
  });
});

describe('Function routes (schema 3)', () => {
  it('GET fills http with method, pathname, params and query', async () => {
    const asAda = sdkAs(ada);
    const todo = await call<Todo>(asAda, 'createTodo', { title: 'Routed' });
    const response = await fetchAs(ada)(`${dev.url}/api/todos/${todo.id}?tag=a&tag=b&x=1`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { todo: Todo; query: unknown } };
    expect(body.result.todo.id).toBe(todo.id);
    expect(body.result.query).toEqual({ tag: ['a', 'b'], x: '1' });
    const list = await fetchAs(ada)(`${dev.url}/api/todos`);
    expect(
      ((await list.json()) as { result: { todos: Todo[] } }).result.todos.length,
    ).toBeGreaterThan(0);
  });

  it('HEAD runs the handler and sends no body', async () => {
    const response = await fetch(`${dev.url}/api/stats`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    const get = await fetch(`${dev.url}/api/stats`);
    expect(((await get.json()) as { result: { via: string } }).result.via).toBe('route');
  });

  it('POST routes take the JSON body; access applies; wrong methods get 405', async () => {
    const created = await fetchAs(ada)(`${dev.url}/api/todos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Posted' }),
    });
    expect(created.status).toBe(200);
    const anonymous = await fetch(`${dev.url}/api/todos`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe(
      'AUTH_REQUIRED',
    );
    const wrong = await fetch(`${dev.url}/api/todos`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    const missing = await fetchAs(ada)(`${dev.url}/api/todos/not-a-uuid`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'TODO_ID_INVALID',
    );
  });
});

describe('the frontend', () => {
  it('serves public/, bundles app.ts as app.js with the SDK, and 404s the rest', async () => {
    const page = await fetch(`${dev.url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    const script = await fetch(`${dev.url}/app.js`);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    const code = await script.text();
    expect(code).toContain('/_platform/api/functions/');
    expect(code).not.toMatch(/from\s+["']@platform\/browser["']/);
    const deep = await fetch(`${dev.url}/some/client/route`);
    expect(await deep.text()).toContain('<title>Todos</title>');
    const outside = await fetch(`${dev.url}/%2e%2e/platform.yaml`);
    expect(outside.status).toBe(404);
    const missing = await fetch(`${dev.url}/missing.png`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'ROUTE_NOT_FOUND',
    );
  });
});

describe('REST reads', () => {
  it('GET /rest/v1/todos shows only the caller’s rows', async () => {
    const rows = (await (
      await fetchAs(ada)(`${dev.url}/rest/v1/todos?select=id,owner_id`)
    ).json()) as Todo[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.owner_id === ada)).toBe(true);
    const none = await (await fetchAs(bob)(`${dev.url}/rest/v1/todos`)).json();
    expect(none).toEqual([]);
  });
});

describe('a restart', () => {
  it('keeps data and files', async () => {
    const asAda = sdkAs(ada);
    const todo = await call<Todo>(asAda, 'createTodo', { title: 'Survives' });
    const base64 = Buffer.from('kept bytes').toString('base64');
    await asAda.functions.call('attachFile', {
      todoId: todo.id,
      name: 'k.txt',
      contentType: 'text/plain',
      base64,
    });
    await dev.close();
    ({ dev } = await devFor(app.path, { watch: false }));
    const again = sdkAs(ada);
    const { todos } = await call<{ todos: Todo[] }>(again, 'listTodos', {});
    expect(todos.map((t) => t.title)).toContain('Survives');
    const read = await call<{ base64: string }>(again, 'readAttachment', {
      todoId: todo.id,
    });
    expect(read.base64).toBe(base64);
  });
});
