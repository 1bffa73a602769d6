// The owner API of backups: the developer lists, takes and restores them; an app access token,
// which acts as the owner for the app's data, may never manage backups (spec 2.2); while a
// restore replaces the database the app answers APP_RESTORING.
import { fillPath } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerApiPaths } from '../../src/http/paths.ts';
import { authBroker } from '../auth/helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;

beforeAll(async () => {
  env = await authBroker();
}, 60_000);
afterAll(() => env?.cleanup());

const dev = () => ({
  authorization: `Bearer ${env.broker.auth.brokerKey}`,
  'content-type': 'application/json',
});
const path = (suffix = '') =>
  `${fillPath(ownerApiPaths.backups, { appId: env.broker.appId })}${suffix}`;

describe('the owner API of backups', () => {
  it('takes, lists and restores a backup for the developer', async () => {
    const taken = await env.broker.app.request(path(), {
      method: 'POST',
      headers: dev(),
      body: '{}',
    });
    expect(taken.status).toBe(201);
    const { backup } = (await taken.json()) as { backup: { id: string; kind: string } };
    expect(backup.kind).toBe('manual');
    const listed = await env.broker.app.request(path(), { headers: dev() });
    expect(
      ((await listed.json()) as { backups: { id: string }[] }).backups.map((b) => b.id),
    ).toEqual([backup.id]);
    const restored = await env.broker.app.request(path(`/${backup.id}/restore`), {
      method: 'POST',
      headers: dev(),
      body: '{}',
    });
    expect(restored.status).toBe(200);
    const missing = await env.broker.app.request(path('/bak_000000000000000000000000/restore'), {
      method: 'POST',
      headers: dev(),
      body: '{}',
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'BACKUP_NOT_FOUND',
    );
  }, 60_000);

  it('refuses an app access token, for reading and for taking', async () => {
    const { token } = await env.broker.auth.appTokens.issue('backups');
    for (const method of ['GET', 'POST'] as const) {
      const response = await env.broker.app.request(path(), {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      expect(response.status, method).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        'PERMISSION_DENIED',
      );
    }
  });

  it('answers FEATURE_NOT_AVAILABLE to a restore into a new app where nothing makes one', async () => {
    // A broker started on its own (not by platform dev or platform serve) has no host for it.
    const taken = await env.broker.app.request(path(), {
      method: 'POST',
      headers: dev(),
      body: '{}',
    });
    const { backup } = (await taken.json()) as { backup: { id: string } };
    const answer = await env.broker.app.request(path(`/${backup.id}/restore`), {
      method: 'POST',
      headers: dev(),
      body: JSON.stringify({ to: 'notes-copy' }),
    });
    expect(answer.status).toBe(501);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
      'FEATURE_NOT_AVAILABLE',
    );
  });

  it('answers APP_RESTORING to the app while a restore replaces the database', async () => {
    const taken = await env.broker.app.request(path(), {
      method: 'POST',
      headers: dev(),
      body: '{}',
    });
    const { backup } = (await taken.json()) as { backup: { id: string } };
    let done = false;
    const restoring = Promise.resolve(
      env.broker.app.request(path(`/${backup.id}/restore`), {
        method: 'POST',
        headers: dev(),
        body: '{}',
      }),
    ).finally(() => {
      done = true;
    });
    const codes = new Set<string>();
    while (!done) {
      // A pause between requests lets the database worker's messages through.
      await new Promise((resolve) => setTimeout(resolve, 2));
      const response = await env.broker.app.request('/rest/v1/notes', { headers: dev() });
      if (response.status === 503)
        codes.add(((await response.json()) as { error: { code: string } }).error.code);
    }
    expect((await restoring).status).toBe(200);
    expect([...codes]).toEqual(['APP_RESTORING']);
  }, 60_000);
});
