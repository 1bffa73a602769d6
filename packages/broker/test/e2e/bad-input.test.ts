// Bad input of every kind against a running `platform dev`: each gets the documented envelope and
// status, and a failed call leaves no row behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { fixtureApp } from './fixture-app.ts';
import { ada, bob, devFor } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;

beforeAll(async () => {
  app = await tempDir('bad-input-');
  await writeFiles(app.path, fixtureApp);
  ({ dev } = await devFor(app.path, { watch: false }));
});

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const call = (name: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${dev.url}/_platform/api/functions/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

async function envelope(response: Response): Promise<{ status: number; code: string }> {
  const body = (await response.json()) as { error: { code: string; requestId: string } };
  expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
  return { status: response.status, code: body.error.code };
}

const noteCount = async () =>
  (await dev.broker.db.query<{ n: number }>('select count(*)::int as n from notes')).rows[0]!.n;

describe('bad input', () => {
  it('malformed JSON is 400 INVALID_REQUEST', async () => {
    expect(await envelope(await call('echo', '{"text":'))).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
    });
  });

  it('a wrong content type is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await call('echo', 'text=hi', { 'content-type': 'text/plain' });
    expect(await envelope(response)).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) });
    expect(await envelope(await call('echo', big))).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('input that does not match the schema is 400 INVALID_INPUT', async () => {
    expect(await envelope(await call('echo', '{"text":1}'))).toEqual({
      status: 400,
      code: 'INVALID_INPUT',
    });
  });

  it('an unknown Function is 404 FUNCTION_NOT_FOUND, an unknown table 404 TABLE_NOT_FOUND', async () => {
    expect(await envelope(await call('nope', '{}'))).toEqual({
      status: 404,
      code: 'FUNCTION_NOT_FOUND',
    });
    expect(await envelope(await fetch(`${dev.url}/rest/v1/nope`))).toEqual({
      status: 404,
      code: 'TABLE_NOT_FOUND',
    });
  });

  it('an RLS denial is 403 PERMISSION_DENIED and writes nothing', async () => {
    const response = await call('addNote', JSON.stringify({ body: 'mine', owner: bob }), {
      'x-test-user': ada,
    });
    expect(await envelope(response)).toEqual({ status: 403, code: 'PERMISSION_DENIED' });
    expect(await noteCount()).toBe(0);
  });

  it('a constraint violation is 409 and writes nothing', async () => {
    const response = await call('addNote', JSON.stringify({ body: 'far too long a note' }), {
      'x-test-user': ada,
    });
    expect(await envelope(response)).toEqual({ status: 409, code: 'DATA_CONSTRAINT_VIOLATION' });
    expect(await noteCount()).toBe(0);
    const ok = await call('addNote', JSON.stringify({ body: 'short' }), { 'x-test-user': ada });
    expect(ok.status).toBe(200);
    expect(await noteCount()).toBe(1);
  });

  it('a crashing Function is 500 FUNCTION_FAILED, restarts, and disturbs no other', async () => {
    const pid = dev.broker.invoker.get('echo')!.process.pid;
    expect(await envelope(await call('crash', '{}'))).toEqual({
      status: 500,
      code: 'FUNCTION_FAILED',
    });
    const echo = await call('echo', '{"text":"still here"}');
    expect(await echo.json()).toEqual({ result: { echo: 'still here', word: null } });
    expect(dev.broker.invoker.get('echo')!.process.pid).toBe(pid);
    // The crashed Function answers again (its process was restarted) and crashes again.
    expect((await envelope(await call('crash', '{}'))).code).toBe('FUNCTION_FAILED');
  });
});
