import { errors, isPlatformError, PlatformError } from '@platform/errors';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { APP, setup, useMsw } from './helpers.ts';

const ada = { id: 'u1', displayName: 'Ada' };
const server = useMsw();
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('functions.call', () => {
  it('sends the input with the session token and resolves with the result', async () => {
    const { platform, broker } = setup(server, {
      user: ada,
      functions: { echo: (input, { user }) => ({ input, user: user?.id }) },
    });
    expect(await platform.functions.call('echo', { text: 'hi' })).toEqual({
      input: { text: 'hi' },
      user: 'u1',
    });
    expect(broker.requests.at(-1)).toEqual({
      route: 'functionCall',
      name: 'echo',
      token: 'mock-token-1-1',
    });
  });

  it('calls public Functions anonymously when signed out', async () => {
    const { platform, broker } = setup(server, {
      functions: { hello: (_, { user }) => `hello ${user ? user.id : 'guest'}` },
      access: { hello: 'public' },
    });
    expect(await platform.functions.call('hello', {})).toBe('hello guest');
    expect(broker.requests.at(-1)?.token).toBeNull();
  });

  it('fails with AUTH_REQUIRED for a user Function when signed out, after one re-check', async () => {
    const { platform, broker } = setup(server, { functions: { save: () => 'saved' } });
    const error = await rejection(platform.functions.call('save', {}));
    expect(isPlatformError(error, 'AUTH_REQUIRED')).toBe(true);
    expect((error as PlatformError).status).toBe(401);
    expect(broker.count('functionCall')).toBe(1);
    expect(broker.count('session')).toBe(2);
  });

  it('retries once with a fresh token when the broker rejects a revoked token', async () => {
    const { platform, broker } = setup(server, { user: ada, functions: { save: () => 'saved' } });
    await platform.auth.currentUser();
    broker.signIn(ada); // a new session: the token the SDK holds is no longer valid
    expect(await platform.functions.call('save', {})).toBe('saved');
    expect(broker.requests.filter((r) => r.route === 'functionCall').map((r) => r.token)).toEqual([
      'mock-token-1-1',
      'mock-token-2-2',
    ]);
  });

  it('picks up a sign-in that happened elsewhere when a call needs a user', async () => {
    const { platform, broker } = setup(server, { functions: { save: () => 'saved' } });
    expect(await platform.auth.currentUser()).toBeNull();
    broker.signIn(ada);
    expect(await platform.functions.call('save', {})).toBe('saved');
    expect(await platform.auth.currentUser()).toEqual(ada);
  });

  it('rejects system Functions with FUNCTION_NOT_CALLABLE from the broker', async () => {
    const { platform } = setup(server, {
      user: ada,
      functions: { nightly: () => null },
      access: { nightly: 'system' },
    });
    const error = await rejection(platform.functions.call('nightly', {}));
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'FUNCTION_NOT_CALLABLE', status: 403 });
  });

  it('passes on the code, message and details a Function threw, including connectUrl', async () => {
    const { platform } = setup(server, {
      user: ada,
      functions: {
        getTodo: ({ id }: { id: string }) => {
          throw errors.notFound('TODO_NOT_FOUND', `No todo ${id}`, { id });
        },
        sync: () =>
          new PlatformError({
            code: 'INTEGRATION_CONNECTION_REQUIRED',
            message: 'Connect your calendar first.',
            details: { connectUrl: 'https://platform.example/connect/abc' },
          }),
      },
    });
    expect(await rejection(platform.functions.call('getTodo', { id: '42' }))).toMatchObject({
      code: 'TODO_NOT_FOUND',
      message: 'No todo 42',
      status: 404,
      details: { id: '42' },
    });
    const error = await rejection(platform.functions.call('sync', {}));
    expect(isPlatformError(error, 'INTEGRATION_CONNECTION_REQUIRED')).toBe(true);
    expect((error as PlatformError).details?.connectUrl).toBe(
      'https://platform.example/connect/abc',
    );
  });

  it('aborts with ABORTED when the caller signal fires', async () => {
    const { platform, broker } = setup(server, { user: ada, functions: { slow: () => 'late' } });
    await platform.auth.currentUser();
    broker.failNext('functionCall', 'timeout');
    const controller = new AbortController();
    const pending = rejection(platform.functions.call('slow', {}, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 10);
    expect(await pending).toMatchObject({ code: 'ABORTED', retryable: false });
    const aborted = AbortSignal.abort();
    expect(await rejection(platform.functions.call('slow', {}, { signal: aborted }))).toMatchObject(
      {
        code: 'ABORTED',
      },
    );
  });

  it('fails with TIMEOUT after timeoutMs', async () => {
    const { platform, broker } = setup(server, { user: ada, functions: { slow: () => 'late' } });
    broker.failNext('functionCall', 'timeout');
    expect(await rejection(platform.functions.call('slow', {}, { timeoutMs: 30 }))).toMatchObject({
      code: 'TIMEOUT',
      retryable: true,
    });
  });

  it('fails with NETWORK_ERROR when the broker cannot be reached', async () => {
    const { platform, broker } = setup(server, { user: ada, functions: { f: () => 1 } });
    await platform.auth.currentUser();
    broker.failNext('functionCall', 'network');
    expect(await rejection(platform.functions.call('f', {}))).toMatchObject({
      code: 'NETWORK_ERROR',
    });
  });

  it('fails with INVALID_RESPONSE for a 2xx body that is not JSON', async () => {
    const { platform } = setup(server, { user: ada });
    server.use(http.post(`${APP}/_platform/api/functions/:name`, () => new Response('<html>')));
    expect(await rejection(platform.functions.call('f', {}))).toMatchObject({
      code: 'INVALID_RESPONSE',
    });
  });

  it('throws TypeError for a missing Function name', async () => {
    const { platform } = setup(server);
    await expect(platform.functions.call('', {})).rejects.toBeInstanceOf(TypeError);
    expect(() => platform.functions.stream('', {})).toThrow(TypeError);
  });

  it('has no search method', () => {
    const { platform } = setup(server);
    expect(Object.keys(platform.functions).sort()).toEqual(['call', 'stream']);
    expect(Object.keys(platform.auth).sort()).toEqual(['currentUser', 'signInUrl']);
  });
});
