import { errors, isPlatformError, PlatformError } from '@platform/errors';
import { describe, expect, it } from 'vitest';
import { APP, clock, setup, useMsw } from './helpers.ts';

const ada = { id: 'u1', displayName: 'Ada', email: 'ada@example.com' };
const server = useMsw();

describe('auth.currentUser', () => {
  it('returns the signed-in user from the session broker', async () => {
    const { platform, broker } = setup(server, { user: ada });
    expect(await platform.auth.currentUser()).toEqual(ada);
    expect(await platform.auth.currentUser()).toEqual(ada);
    expect(broker.count('session')).toBe(1);
  });

  it('returns null when there is no session', async () => {
    const { platform } = setup(server);
    expect(await platform.auth.currentUser()).toBeNull();
  });

  it('treats a 401 from the session route as signed out', async () => {
    const time = clock();
    const { platform, broker } = setup(
      server,
      { user: ada, now: time.now, functions: { save: () => 'saved' } },
      { now: time.now },
    );
    expect(await platform.auth.currentUser()).toEqual(ada);
    broker.expireSession();
    time.advance(3_600_000 - 30_000); // final minute: the SDK refreshes and is rejected
    expect(await platform.auth.currentUser()).toBeNull();
    const failure = await platform.functions.call('save', {}).catch((error: unknown) => error);
    expect(isPlatformError(failure, 'AUTH_REQUIRED')).toBe(true);
  });

  it('reports a refresh timeout as an error, not as signed out', async () => {
    const time = clock();
    const { platform, broker } = setup(
      server,
      { user: ada, now: time.now, functions: { save: () => 'saved' } },
      { now: time.now, sessionTimeoutMs: 50 },
    );
    expect(await platform.auth.currentUser()).toEqual(ada);
    time.advance(3_600_000 + 1); // the token has expired
    broker.failNext('session', 'timeout');
    const failure = await platform.auth.currentUser().catch((error: unknown) => error);
    expect(isPlatformError(failure, 'TIMEOUT')).toBe(true);
    expect((failure as PlatformError).retryable).toBe(true);
    // Still signed in: the next refresh succeeds and the user is back.
    expect(await platform.auth.currentUser()).toEqual(ada);
    expect(await platform.functions.call('save', {})).toBe('saved');
  });

  it('reports a 5xx of the session broker as that error, not as signed out', async () => {
    const time = clock();
    const { platform, broker } = setup(server, { user: ada, now: time.now }, { now: time.now });
    await platform.auth.currentUser();
    time.advance(3_600_000);
    broker.failNext('session', errors.unavailable('AUTH_UNAVAILABLE', 'Auth service down'));
    const failure = await platform.auth.currentUser().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformError);
    expect(failure).toMatchObject({ code: 'AUTH_UNAVAILABLE', status: 503, retryable: true });
    expect(await platform.auth.currentUser()).toEqual(ada);
  });

  it('keeps using a still-valid token when a refresh in its final minute fails', async () => {
    const time = clock();
    const { platform, broker } = setup(
      server,
      { user: ada, now: time.now, functions: { save: () => 'saved' } },
      { now: time.now },
    );
    await platform.auth.currentUser();
    time.advance(3_600_000 - 20_000);
    broker.failNext('session', 'network');
    expect(await platform.functions.call('save', {})).toBe('saved');
    expect(broker.requests.at(-1)?.token).toBe('mock-token-1-1');
  });

  it('never falls back to an anonymous call when the refresh of an expired token fails', async () => {
    const time = clock();
    const { platform, broker } = setup(
      server,
      { user: ada, now: time.now, functions: { save: () => 'saved' }, access: { save: 'public' } },
      { now: time.now },
    );
    await platform.auth.currentUser();
    time.advance(3_600_001);
    broker.failNext('session', 500);
    const failure = await platform.functions.call('save', {}).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'INVALID_RESPONSE', status: 500 });
    expect(broker.count('functionCall')).toBe(0);
  });

  it('refreshes in the final minute with exactly one request for concurrent calls', async () => {
    const time = clock();
    const { platform, broker } = setup(
      server,
      { user: ada, now: time.now, functions: { echo: (input) => input } },
      { now: time.now },
    );
    await platform.auth.currentUser();
    time.advance(3_600_000 - 59_000);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => platform.functions.call('echo', { i })),
    );
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => ({ i })));
    expect(broker.count('session')).toBe(2);
    const tokens = new Set(
      broker.requests.filter((r) => r.route === 'functionCall').map((r) => r.token),
    );
    expect([...tokens]).toEqual(['mock-token-1-2']);
  });

  it('does not refresh before the final minute', async () => {
    const time = clock();
    const { platform, broker } = setup(server, { user: ada, now: time.now }, { now: time.now });
    await platform.auth.currentUser();
    time.advance(3_600_000 - 61_000);
    await platform.auth.currentUser();
    expect(broker.count('session')).toBe(1);
  });

  it('rejects a session answer it cannot read as INVALID_RESPONSE', async () => {
    const { platform, broker } = setup(server, { user: ada });
    broker.failNext('session', 200);
    const failure = await platform.auth.currentUser().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('accepts epoch expiry times in the session answer', async () => {
    const time = clock();
    const expires = (time.now() + 3_600_000) / 1000;
    const { platform } = setup(
      server,
      {},
      {
        now: time.now,
        fetch: async () => Response.json({ user: ada, token: 't', expiresAt: expires }),
      },
    );
    expect(await platform.auth.currentUser()).toEqual(ada);
  });
});

describe('auth.signInUrl', () => {
  it('points at the sign-in route of the app with the return target', () => {
    const { platform } = setup(server);
    const url = new URL(platform.auth.signInUrl(`${APP}/todos?id=1`));
    expect(url.origin + url.pathname).toBe(`${APP}/_platform/auth/sign-in`);
    expect(url.searchParams.get('returnTo')).toBe(`${APP}/todos?id=1`);
    expect(new URL(platform.auth.signInUrl()).searchParams.get('returnTo')).toBe(APP);
  });
});
