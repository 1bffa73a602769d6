import { describe, expect, it } from 'vitest';
import { BASE, expectOne, run } from './helpers.ts';

const fn = (name: string, access: string, extra = '') =>
  `  - name: ${name}\n    entrypoint: functions/api/index.ts\n    access: ${access}\n${extra}`;
const route = (path: string, methods?: string) =>
  `    route:\n      path: ${path}\n${methods ? `      methods: ${methods}\n` : ''}`;

describe('functions[]', () => {
  it('rejects a duplicate name', async () => {
    await expectOne(
      `${BASE}  - name: 👉api\n    entrypoint: functions/api/index.ts\n    access: user\n`,
      'FUNCTION_NAME_DUPLICATE',
      'functions[3].name',
    );
  });

  it('rejects an invalid name', async () => {
    await expectOne(
      `${BASE}${fn('👉send email', 'user')}`,
      'FUNCTION_NAME_INVALID',
      'functions[3].name',
    );
  });

  it('rejects an access outside user|public|system, with a suggestion', async () => {
    const d = await expectOne(
      `${BASE}${fn('x', '👉sytem')}`,
      'FUNCTION_ACCESS_INVALID',
      'functions[3].access',
    );
    expect(d.message).toContain('Did you mean "system"?');
  });

  it('rejects a missing entrypoint file', async () => {
    await expectOne(
      `${BASE}  - name: x\n    entrypoint: 👉functions/x/index.ts\n    access: user\n`,
      'FUNCTION_ENTRYPOINT_MISSING',
      'functions[3].entrypoint',
    );
  });

  it('treats entrypoint names as case-sensitive', async () => {
    await expectOne(
      `${BASE}  - name: x\n    entrypoint: 👉functions/API/index.ts\n    access: user\n`,
      'FUNCTION_ENTRYPOINT_MISSING',
      'functions[3].entrypoint',
    );
  });

  it.each([
    ['../outside/index.ts'],
    ['/abs/index.ts'],
    ['functions/x/index.js'],
    ['functions\\x\\index.ts'],
    ['functions//x.ts'],
  ])('rejects the entrypoint %s', async (entrypoint) => {
    await expectOne(
      `${BASE}  - name: x\n    entrypoint: 👉'${entrypoint}'\n    access: user\n`,
      'FUNCTION_ENTRYPOINT_INVALID',
      'functions[3].entrypoint',
    );
  });
});

describe('functions[].route', () => {
  it('accepts distinct routes, methods and a literal beside a shorter param route', async () => {
    const { errors } = await run(
      `${BASE}${fn('a', 'user', route('/api/todos/:id', '[GET, DELETE]'))}${fn('b', 'public', route('/api/todos/:id', '[POST]'))}${fn('c', 'user', route('/api/todos'))}`,
    );
    expect(errors).toEqual([]);
  });

  it('rejects an invalid path pattern', async () => {
    await expectOne(
      `${BASE}${fn('a', 'user', route('👉/api/todos/'))}`,
      'ROUTE_PATH_INVALID',
      'functions[3].route.path',
    );
  });

  it('rejects an unknown method', async () => {
    await expectOne(
      `${BASE}${fn('a', 'user', route('/api', '[GET, 👉FETCH]'))}`,
      'ROUTE_METHOD_INVALID',
      'functions[3].route.methods[1]',
    );
  });

  it('rejects a repeated method', async () => {
    await expectOne(
      `${BASE}${fn('a', 'user', route('/api', '[GET, 👉GET]'))}`,
      'ROUTE_METHOD_DUPLICATE',
      'functions[3].route.methods[1]',
    );
  });

  it.each([
    '/_platform/api/x',
    '/rest/v1/todos',
    '/rest',
    '/v1',
    '/v1/apps/my-app/jobs',
    '/V1/apps',
    '/_Platform/auth',
    '/REST/v1/todos',
  ])('rejects the reserved path %s', async (path) => {
    await expectOne(
      `${BASE}${fn('a', 'user', route(`👉${path}`))}`,
      'ROUTE_PATH_RESERVED',
      'functions[3].route.path',
    );
  });

  it('allows a path that only starts with the letters of a reserved prefix', async () => {
    for (const path of ['/restaurants', '/v10/items', '/_platformer']) {
      const { errors } = await run(`${BASE}${fn('a', 'user', route(path))}`);
      expect(errors, path).toEqual([]);
    }
  });

  it('rejects a repeated parameter name', async () => {
    await expectOne(
      `${BASE}${fn('a', 'user', route('👉/a/:id/b/:id'))}`,
      'ROUTE_PARAM_DUPLICATE',
      'functions[3].route.path',
    );
  });

  it('rejects a duplicate route (parameter names do not matter)', async () => {
    const d = await expectOne(
      `${BASE}${fn('a', 'user', route('/todos/:id'))}${fn('b', 'user', route('👉/todos/:todoId', '[GET, POST]'))}`,
      'ROUTE_DUPLICATE',
      'functions[4].route.path',
    );
    expect(d.message).toContain('functions[3]');
  });

  it('treats GET as also answering HEAD', async () => {
    await expectOne(
      `${BASE}${fn('a', 'user', route('/todos'))}${fn('b', 'user', route('👉/todos', '[HEAD]'))}`,
      'ROUTE_DUPLICATE',
      'functions[4].route.path',
    );
  });

  it('rejects overlapping routes', async () => {
    await expectOne(
      `${BASE}${fn('a', 'user', route('/todos/:id'))}${fn('b', 'user', route('👉/todos/new'))}`,
      'ROUTE_OVERLAP',
      'functions[4].route.path',
    );
  });

  it('rejects a route on a system Function', async () => {
    await expectOne(
      `${BASE}${fn('a', 'system', `    👉route:\n      path: /hook\n`)}`,
      'ROUTE_ON_SYSTEM_FUNCTION',
      'functions[3].route',
    );
  });
});
