// Agent credentials (spec 5.2.5, 5.4): asked for from a terminal, approved in the browser by
// the person the agent acts for, then usable on the agent tools' routes of that one app only.
import { errorFromResponse } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser, field } from './helpers.ts';

const OWNER = 'owner@localhost';
let env: Awaited<ReturnType<typeof authBroker>>;
let other: Awaited<ReturnType<typeof authBroker>>;

const api = (path: string, init: { method?: string; body?: unknown; bearer?: string } = {}) =>
  fetch(`${env.broker.server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${init.bearer ?? env.broker.auth.brokerKey}`,
      'content-type': 'application/json',
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

/** Asks for an agent credential, has `email` decide in the browser, and claims it. */
async function agentFor(email: string, decision = 'approve') {
  const asked = (await (
    await api(`/v1/apps/${env.broker.appId}/tokens/requests`, {
      body: { kind: 'agent', name: 'claude' },
    })
  ).json()) as { id: string; approveUrl: string; userCode: string; claimSecret: string };
  const browser = new FakeBrowser(env.broker);
  await browser.signInByEmail(email);
  const path = new URL(asked.approveUrl).pathname;
  const page = await browser.navigate(path);
  if (page.status !== 200) return { status: page.status, page: await page.text() };
  const html = await page.text();
  await browser.request(path, {
    form: { csrf: field(html, 'csrf'), decision, code: asked.userCode },
  });
  const claimed = await api(`/v1/apps/${env.broker.appId}/tokens/requests/${asked.id}/claim`, {
    body: { secret: asked.claimSecret },
  });
  return {
    status: claimed.status,
    page: html,
    claim: (await claimed.json()) as { token?: string; state?: string },
  };
}

beforeAll(async () => {
  [env, other] = await Promise.all([authBroker(), authBroker({ auth: { appId: 'other' } })]);
}, 120_000);
afterAll(async () => {
  await env?.cleanup();
  await other?.cleanup();
});

describe('agent credentials', () => {
  let credential = '';

  it('are approved by the person they act for, and handed out once', async () => {
    const got = await agentFor(OWNER);
    expect(got.page).toContain('Let a coding agent act for you');
    expect(got.claim).toMatchObject({
      state: 'approved',
      info: { name: 'claude', appId: 'notes' },
    });
    credential = got.claim?.token ?? '';
    expect(credential).toMatch(/^plat_agent_[\w-]{43}$/);
    const { rows } = await env.broker.db.query('SELECT * FROM platform.agent_credentials');
    expect(JSON.stringify(rows)).not.toContain(credential.slice(11));
  });

  it('cannot be approved by someone who may not change the app', async () => {
    await env.broker.auth.grantAccess('bob@example.com');
    const got = await agentFor('bob@example.com');
    expect(got.status).toBe(403);
    expect(got.page).toContain('may not change notes');
  });

  it('reach the agent tools’ routes of their app, and nothing else', async () => {
    const bearer = credential;
    expect((await api('/v1/apps/notes/jobs', { bearer })).status).toBe(200);
    for (const [path, method] of [
      [`/v1/apps/${env.broker.appId}/outbox`, 'GET'],
      [`/v1/apps/${env.broker.appId}/tokens`, 'POST'],
      [`/v1/apps/${env.broker.appId}/access`, 'GET'],
      [`/v1/apps/${env.broker.appId}/agents`, 'GET'],
      ['/v1/apps/notes/connections/links', 'POST'],
    ] as const) {
      const response = await api(path, {
        method,
        bearer,
        ...(method === 'POST' ? { body: {} } : {}),
      });
      expect(response.status, path).toBe(403);
      const error = await errorFromResponse(response);
      expect(error.code).toBe('PERMISSION_DENIED');
      if (path.includes('links')) expect(error.message).toContain('person’s action');
    }
    // Another app does not know it.
    const elsewhere = await fetch(`${other.broker.server.url}/v1/apps/other/jobs`, {
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(elsewhere.status).toBe(401);
    // It is not a sign-in: the app's runtime does not take it as a user.
    const runtime = await fetch(`${env.broker.server.url}/_platform/api/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(runtime.status).toBe(401);
  });

  it('are listed and revoked by the developer, and refused at once', async () => {
    const listed = (await (await api(`/v1/apps/${env.broker.appId}/agents`)).json()) as {
      agents: { id: string; hint: string }[];
    };
    expect(listed.agents).toHaveLength(1);
    expect(credential.startsWith(listed.agents[0]?.hint.slice(0, -1) ?? '-')).toBe(true);
    const revoked = await api(`/v1/apps/${env.broker.appId}/agents/${listed.agents[0]?.id}`, {
      method: 'DELETE',
    });
    expect(revoked.status).toBe(200);
    const after = await api('/v1/apps/notes/jobs', { bearer: credential });
    expect(after.status).toBe(401);
    expect((await errorFromResponse(after)).code).toBe('AUTH_REQUIRED');
  });

  it('a declined request gives no credential', async () => {
    const got = await agentFor(OWNER, 'decline');
    expect(got.status).toBe(403);
    expect(got.claim).toMatchObject({ error: { code: 'TOKEN_REQUEST_DENIED' } });
  });
});
