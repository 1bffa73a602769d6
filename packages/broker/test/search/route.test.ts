import { runtimeContract } from '@platform/schema/contract';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountRuntimeRoutes, type RuntimeServices } from '../../src/api/runtime-routes.ts';
import { InvocationTokens } from '../../src/functions/invocation-tokens.ts';
import type { BrokerEnv } from '../../src/http/broker-env.ts';
import { handleError } from '../../src/http/error-handler.ts';
import { requestId } from '../../src/http/request-id.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { users } from './corpus.ts';
import { openSearchApp, type SearchApp } from './fixture.ts';

let s: SearchApp;
const tokens = new InvocationTokens();

// Only the search route is called here: the other services are never reached.
function appWith(search: RuntimeServices['search']): Hono<BrokerEnv> {
  const app = new Hono<BrokerEnv>();
  app.use(requestId());
  app.onError(handleError(() => undefined));
  const unused = {} as never;
  mountRuntimeRoutes(app, {
    tokens,
    data: unused,
    files: unused,
    secrets: unused,
    outbox: unused,
    logs: unused,
    ...(search ? { search } : {}),
  });
  return app;
}

const token = (sdkVersion: string) =>
  tokens.mint(
    {
      requestId: 'r1',
      functionName: 'find',
      caller: userCaller(users.ada),
      sdkVersion,
      secrets: [],
      emailAliases: [],
    },
    60_000,
  );

const call = (app: Hono<BrokerEnv>, name: string, body: unknown, sdkVersion = '2.4.0') =>
  app.request(runtimeContract.dataSearch.path.replace(':name', name), {
    method: 'POST',
    headers: { authorization: `Bearer ${token(sdkVersion)}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  s = await openSearchApp();
});
afterAll(async () => {
  await s?.cleanup();
});

describe('the dataSearch runtime route', () => {
  const body = { mode: 'hybrid', query: 'alpha', vector: [1, 0, 1, 0], model: 'test-embed@1' };

  it('answers hits that match the contract response schema', async () => {
    const response = await call(appWith(s.search), 'docs', body);
    expect(response.status).toBe(200);
    const parsed = runtimeContract.dataSearch.response.parse(await response.json());
    expect(parsed.hits.length).toBeGreaterThan(0);
    expect(Object.keys(parsed.hits[0]!.record)).toEqual(['id', 'title', 'category']);
  });

  it('is gated at SDK 2.4.0 (spec 9: the paired 2.4 candidate)', async () => {
    const response = await call(appWith(s.search), 'docs', body, '2.3.0');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'SDK_VERSION_UNSUPPORTED' } });
  });

  it('answers the search codes in the error envelope with their statuses', async () => {
    const app = appWith(s.search);
    const notDeclared = await call(app, 'nope', body);
    expect(notDeclared.status).toBe(404);
    expect(await notDeclared.json()).toMatchObject({ error: { code: 'SEARCH_NOT_DECLARED' } });
    const irrelevant = await call(app, 'docs', { mode: 'fullText', query: 'a', model: 'x' });
    expect(irrelevant.status).toBe(400);
    expect(await irrelevant.json()).toMatchObject({ error: { code: 'SEARCH_INPUT_INVALID' } });
  });

  it('says SEARCH_NOT_DECLARED, as the test kit does, when platform.yaml declares no search', async () => {
    const response = await call(appWith(undefined), 'docs', body);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { code: 'SEARCH_NOT_DECLARED', details: { search: 'docs' } },
    });
  });
});
