// The developer's tools answer on the owner API under /v1/ (spec 9): grants, tokens and token
// requests, agent credentials, the outbox, AI calls, push deliveries, inbound mail and the
// platform administrators. The old /_platform/broker/* paths answer ROUTE_MOVED naming the new
// path, and the control plane's admission covers the new paths as it covered the old.
import { errorFromResponse } from '@platform/errors';
import { fillPath } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { isControlPlane, ownerApiPaths } from '../../src/http/paths.ts';
import { authBroker, FakeBrowser } from '../auth/helpers.ts';
import { openTestCentral } from '../helpers/db.ts';

const ADA = 'ada@example.com';
let env: Awaited<ReturnType<typeof authBroker>>;
let central: Database;

beforeAll(async () => {
  // With the organisation's store, so the platform administrators' path is served too.
  central = await openTestCentral();
  env = await authBroker({ broker: { central } });
  // Ada may open the private app, but is neither its owner nor its developer.
  await env.broker.auth.grantAccess(ADA);
}, 60_000);
afterAll(async () => {
  await env?.cleanup();
  await central?.close();
});

const dev = () => ({ authorization: `Bearer ${env.broker.auth.brokerKey}` });
const at = (path: string, params: Record<string, string> = {}) =>
  fillPath(path, { appId: env.broker.appId, ...params });

// Each GET of the moved paths, filled for this app.
const reads = () => [
  at(ownerApiPaths.access),
  at(ownerApiPaths.tokens),
  at(ownerApiPaths.agents),
  at(ownerApiPaths.outbox),
  at(ownerApiPaths.aiCalls),
  at(ownerApiPaths.pushDeliveries),
  at(ownerApiPaths.files),
  ownerApiPaths.platformAdministrators,
];

describe('the owner API paths begin with /v1/', () => {
  it('every path of the developer’s tools lies under /v1/ and on the control plane', () => {
    for (const path of Object.values(ownerApiPaths)) {
      expect(path.startsWith('/v1/'), path).toBe(true);
      expect(
        isControlPlane(fillPath(path, { appId: 'notes', name: 'f', emailId: 'e' })),
        path,
      ).toBe(true);
    }
  });

  it('answers the developer under /v1/apps/{appId}/... and /v1/platform-administrators', async () => {
    for (const path of reads()) {
      const response = await env.broker.app.request(path, { headers: dev() });
      expect(response.status, path).toBe(200);
    }
    const granted = await env.broker.app.request(at(ownerApiPaths.access), {
      method: 'POST',
      headers: { ...dev(), 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bea@example.com' }),
    });
    expect(await granted.json()).toEqual({ email: 'bea@example.com', granted: true });
    const asked = await env.broker.app.request(`${at(ownerApiPaths.tokens)}/requests`, {
      method: 'POST',
      headers: { ...dev(), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(asked.status).toBe(201);
    expect(await asked.json()).toMatchObject({ approveUrl: expect.any(String) });
  });

  it('answers APP_NOT_FOUND for another app’s id', async () => {
    const paths = [
      ownerApiPaths.access,
      ownerApiPaths.tokens,
      ownerApiPaths.agents,
      ownerApiPaths.outbox,
      ownerApiPaths.aiCalls,
      ownerApiPaths.pushDeliveries,
      ownerApiPaths.files,
    ];
    for (const path of paths) {
      const response = await env.broker.app.request(fillPath(path, { appId: 'other' }), {
        headers: dev(),
      });
      expect(response.status, path).toBe(404);
      expect((await errorFromResponse(response)).code, path).toBe('APP_NOT_FOUND');
    }
    const mail = await env.broker.app.request(fillPath(ownerApiPaths.mailInbound, { appId: 'x' }), {
      method: 'POST',
      headers: { ...dev(), 'content-type': 'message/rfc822' },
      body: 'Subject: x\r\n\r\nx\r\n',
    });
    expect((await errorFromResponse(mail)).code).toBe('APP_NOT_FOUND');
  });

  it('keeps a signed-in account that is not the developer or owner out of every new path', async () => {
    const ada = new FakeBrowser(env.broker);
    await ada.signInByEmail(ADA);
    expect((await ada.navigate('/')).status).not.toBe(403);
    const { body } = await ada.session();
    const paths = [
      ...reads(),
      at(ownerApiPaths.mailInbound),
      at(ownerApiPaths.invoke, { name: 'anything' }),
    ];
    for (const path of paths) {
      const read = await ada.request(path);
      expect(read.status, path).toBe(403);
      expect((await errorFromResponse(read)).code, path).toBe('PERMISSION_DENIED');
      // Nor with the access JWT any script of the app can hold, for a read or a change.
      for (const method of ['GET', 'POST']) {
        const bearer = await ada.request(path, {
          method,
          headers: { authorization: `Bearer ${String(body.token)}` },
        });
        expect(bearer.status, `${method} ${path}`).toBe(403);
      }
    }
  });
});

describe('the old /_platform/broker/* paths', () => {
  it('answer ROUTE_MOVED (410) with the new path, keeping the rest of the path', async () => {
    const moves: [old: string, method: string, now: string][] = [
      ['/_platform/broker/tokens', 'GET', at(ownerApiPaths.tokens)],
      [
        '/_platform/broker/tokens/requests/r1/claim',
        'POST',
        `${at(ownerApiPaths.tokens)}/requests/r1/claim`,
      ],
      [
        '/_platform/broker/access/ada%40example.com',
        'DELETE',
        `${at(ownerApiPaths.access)}/ada%40example.com`,
      ],
      ['/_platform/broker/outbox', 'GET', at(ownerApiPaths.outbox)],
      ['/_platform/broker/invoke/tidy', 'POST', at(ownerApiPaths.invoke, { name: 'tidy' })],
      ['/_platform/broker/mail/inbound', 'POST', at(ownerApiPaths.mailInbound)],
      [
        '/_platform/broker/platform-administrators/a%40b.c',
        'PUT',
        '/v1/platform-administrators/a%40b.c',
      ],
    ];
    for (const [old, method, now] of moves) {
      const response = await env.broker.app.request(old, { method, headers: dev() });
      expect(response.status, old).toBe(410);
      const error = await errorFromResponse(response);
      expect(error.code, old).toBe('ROUTE_MOVED');
      expect(error.details, old).toEqual({ location: now });
      expect(error.message, old).toContain(now);
    }
  });

  it('stay on the control plane: nobody else learns anything there', async () => {
    const ada = new FakeBrowser(env.broker);
    await ada.signInByEmail(ADA);
    for (const path of ['/_platform/broker/tokens', '/_platform/broker/outbox']) {
      expect((await ada.request(path)).status, path).toBe(403);
      expect((await env.broker.app.request(path)).status, path).toBe(403);
    }
  });
});
