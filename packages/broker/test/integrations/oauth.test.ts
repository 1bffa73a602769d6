// OAuth connections against a real OAuth 2 server on loopback (spec 2.10, 3.2): the connect
// page sends the person to the provider with PKCE and a one-time state, the provider app's own
// exchange Function (real Deno, reaching the server through --allow-net) turns the code into
// tokens, operations read the access token, an expiring token is refreshed once, and a
// rejected refresh asks for a new sign-in whose link makes the connection active again.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorFromResponse, type PlatformError } from '@platform/errors';
import { browserRoutes } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import { pkceChallenge } from '../../src/integrations/oauth-states.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { TestClock } from '../auth/helpers.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { startOAuthServer, type TestOAuthServer } from '../helpers/oauth-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const CLIENT_ID = 'calendar-client';

let root: { path: string; remove: () => Promise<void> };
let oauth: TestOAuthServer;
let ws: WorkspaceServer;
const lines: string[] = [];

const calendarYaml = `schemaVersion: 3
runtime: { sdk: { version: 2.6.0 } }
visibility: private
functions:
  - { name: exchange, entrypoint: functions/exchange.ts, access: system }
  - { name: refresh, entrypoint: functions/refresh.ts, access: system }
  - { name: whoAmI, entrypoint: functions/who-am-i.ts, access: system }
provides:
  integration:
    name: calendar
    title: Team Calendar
    description: The team's calendar.
    credentials: []
    authorization:
      type: oauth2
      authorizationUrl: OAUTH_URL/authorize
      clientId: ${CLIENT_ID}
      scopes: [calendar.read, profile]
      exchange: exchange
      refresh: refresh
    capabilities:
      - { name: calendar.read, description: Read the calendar. }
    operations:
      - name: me.get
        description: Who the connection signed in as.
        capability: calendar.read
        function: whoAmI
        fake: { user: fake-user }
`;

// The provider's token requests, as a real provider app writes them: a 4xx from the token
// endpoint is a rejection (unauthorized), anything else a failure the platform may retry.
const tokenRequest = `export async function tokenRequest(params: Record<string, string>) {
  const response = await fetch('OAUTH_URL/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: '${CLIENT_ID}', ...params }),
  });
  const body = await response.json();
  if (response.status >= 400 && response.status < 500) {
    throw errors.unauthorized('TOKEN_REJECTED', 'The calendar refused the grant: ' + body.error);
  }
  if (!response.ok) throw errors.unavailable('CALENDAR_DOWN', 'The calendar is unavailable.');
  return { accessToken: body.access_token, refreshToken: body.refresh_token, expiresIn: body.expires_in };
}
import { errors } from '@platform/server';
`;

const exchangeTs = `import { defineFunction, s } from '@platform/server';
import { tokenRequest } from './token-request.ts';
export default defineFunction({
  input: s.object({ code: s.string(), redirectUri: s.string(), codeVerifier: s.nullable(s.string()) }),
  handler: ({ input }) =>
    tokenRequest({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      ...(input.codeVerifier ? { code_verifier: input.codeVerifier } : {}),
    }),
});
`;

const refreshTs = `import { defineFunction, s } from '@platform/server';
import { tokenRequest } from './token-request.ts';
export default defineFunction({
  input: s.object({ refreshToken: s.string() }),
  handler: ({ input }) => tokenRequest({ grant_type: 'refresh_token', refresh_token: input.refreshToken }),
});
`;

const whoAmITs = `import { defineFunction, errors, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async ({ secrets }) => {
    const token = await secrets.require('OAUTH_ACCESS_TOKEN');
    const response = await fetch('OAUTH_URL/api/me', { headers: { authorization: 'Bearer ' + token } });
    if (response.status === 401) throw errors.unauthorized('TOKEN_REJECTED', 'The calendar refused the token.');
    const body = await response.json();
    return { user: body.user };
  },
});
`;

const plannerYaml = `schemaVersion: 3
runtime: { sdk: { version: 2.6.0 } }
visibility: public
functions:
  - { name: agenda, entrypoint: functions/agenda.ts, access: public }
integrations:
  calendar:
    provider: custom
    integration: calendar
    account: app
    cardinality: one
    capabilities: [calendar.read]
`;

const agendaTs = `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: ({ integrations }) => integrations.use('calendar').call('me.get', {}),
});
`;

async function write(path: string, text: string) {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text.replaceAll('OAUTH_URL', oauth.url));
}

beforeAll(async () => {
  root = await tempDir('oauth-');
  // Access tokens live 30 s: always within the minute that asks for a refresh before use.
  oauth = await startOAuthServer({
    clientId: CLIENT_ID,
    redirectUri: () => `${ws.url}/v1/custom-integrations/oauth/callback`,
    accessTokenLifetime: 30,
  });
  const calendar = join(root.path, 'calendar');
  const planner = join(root.path, 'planner');
  await write(join(calendar, 'platform.yaml'), calendarYaml);
  await write(join(calendar, 'functions/token-request.ts'), tokenRequest);
  await write(join(calendar, 'functions/exchange.ts'), exchangeTs);
  await write(join(calendar, 'functions/refresh.ts'), refreshTs);
  await write(join(calendar, 'functions/who-am-i.ts'), whoAmITs);
  await write(join(planner, 'platform.yaml'), plannerYaml);
  await write(join(planner, 'functions/agenda.ts'), agendaTs);
  ws = await startWorkspace({
    appDirs: [calendar, planner],
    workspaceDir: root.path,
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    allowNet: [oauth.host],
    logWriter: (line) => lines.push(line),
  });
  const central = ws.apps[0]!.broker.central;
  await new Accounts(central, central, new TestClock()).create('ada@example.com', 'confirmed');
  const members = new Memberships(central);
  const [first] = (await members.list()).filter((m) => m.role === 'administrator');
  await members.setRole(first!.accountId, 'ada@example.com', 'administrator');
  const ada = (await members.list()).find((m) => m.email === 'ada@example.com')!.accountId;
  await ws.authority.setOwner('calendar', ada);
  await ws.authority.setOwner('planner', ada);
}, 180_000);

afterAll(async () => {
  await ws?.close();
  await oauth?.close();
  await root?.remove();
});

const owner = (path: string, init: RequestInit = {}) =>
  fetch(`${ws.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${ws.devToken}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });

const agenda = () =>
  fetch(
    `http://127.0.0.1:${ws.app('planner')!.port}${browserRoutes.functionCall.path.replace(':name', 'agenda')}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
  );

async function failure(response: Response): Promise<PlatformError> {
  expect(response.ok).toBe(false);
  return errorFromResponse(response);
}

/** Follows a connect link through the provider's sign-in; answers the callback's response. */
async function signIn(connectUrl: string): Promise<Response> {
  const page = await fetch(connectUrl);
  expect(await page.text()).toContain('Continue to sign in');
  const posted = await fetch(connectUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
    redirect: 'manual',
  });
  expect(posted.status).toBe(303);
  const authorize = await fetch(posted.headers.get('location')!, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  return fetch(authorize.headers.get('location')!);
}

const connectionOf = async () => {
  const { connections } = (await (await owner('/v1/apps/calendar/connections')).json()) as {
    connections: { id: string; condition: string }[];
  };
  return connections;
};

describe('an OAuth connection', () => {
  it('signs in at the provider with PKCE and a one-time state, and stores the tokens sealed', async () => {
    const link = (await (
      await owner('/v1/apps/calendar/connections/links', {
        method: 'POST',
        body: JSON.stringify({
          kind: 'organisation',
          actingAs: 'ada@example.com',
          bind: { appId: 'planner', slot: 'calendar' },
        }),
      })
    ).json()) as { url: string };
    const posted = await fetch(link.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    const authorizeUrl = new URL(posted.headers.get('location')!);
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${oauth.url}/authorize`);
    const query = authorizeUrl.searchParams;
    expect(query.get('response_type')).toBe('code');
    expect(query.get('client_id')).toBe(CLIENT_ID);
    expect(query.get('redirect_uri')).toBe(`${ws.url}/v1/custom-integrations/oauth/callback`);
    expect(query.get('scope')).toBe('calendar.read profile');
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('state')!.length).toBeGreaterThanOrEqual(43);
    // The link is used up by the step to the provider.
    expect((await fetch(link.url)).status).toBe(410);

    const authorize = await fetch(authorizeUrl, { redirect: 'manual' });
    const callback = authorize.headers.get('location')!;
    const done = await fetch(callback);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Team Calendar is connected');
    expect(oauth.grants.authorization_code).toBe(1);
    // The state is one-time: the same redirect again stores nothing.
    expect((await fetch(callback)).status).toBe(410);
    expect(await connectionOf()).toHaveLength(1);

    const central = ws.apps[0]!.broker.central;
    const { rows } = await central.query<{ oauth_tokens: string; token_expires_at: Date }>(
      'SELECT oauth_tokens, token_expires_at FROM platform.connections',
    );
    expect(rows[0]!.token_expires_at).toBeInstanceOf(Date);
    // Sealed: neither token is readable in the central store.
    expect(rows[0]!.oauth_tokens).not.toMatch(/accessToken|refreshToken/);
  });

  it('derives the S256 challenge of RFC 7636 (the server checks the verifier against it)', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    // RFC 7636 appendix B.
    expect(pkceChallenge(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('answers live calls with the access token, refreshed once when it is about to expire', async () => {
    await owner('/v1/apps/planner/dev/integrations', {
      method: 'PUT',
      body: JSON.stringify({ slot: 'calendar', mode: 'live' }),
    });
    const before = oauth.grants.refresh_token;
    oauth.tokenDelayMs = 300;
    const answers = await Promise.all([agenda(), agenda(), agenda(), agenda()]);
    oauth.tokenDelayMs = 0;
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ result: { user: 'user-1' } });
    }
    // Four calls at once, one refresh: the tokens it stored serve the rest.
    expect(oauth.grants.refresh_token).toBe(before + 1);
  });

  it('a rejected refresh asks for a new sign-in, whose link makes the connection active', async () => {
    oauth.revokeRefreshTokens();
    const refused = await failure(await agenda());
    expect(refused.code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    const connectUrl = String(refused.details?.connectUrl);
    expect(connectUrl.startsWith(`${ws.url}/v1/custom-integrations/connect/`)).toBe(true);
    expect((await connectionOf())[0]!.condition).toBe('reconnect_required');
    // Until then every call says so, without asking the provider again.
    const refreshes = oauth.grants.refresh_token;
    expect((await failure(await agenda())).code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    expect(oauth.grants.refresh_token).toBe(refreshes);

    const done = await signIn(connectUrl);
    expect(done.status).toBe(200);
    expect((await connectionOf())[0]!.condition).toBe('active');
    expect(await connectionOf()).toHaveLength(1);
    const again = await agenda();
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ result: { user: 'user-1' } });
  });

  it('stores nothing when the person declines at the provider', async () => {
    const link = (await (
      await owner('/v1/apps/calendar/connections/links', {
        method: 'POST',
        body: JSON.stringify({ kind: 'organisation', actingAs: 'ada@example.com' }),
      })
    ).json()) as { url: string };
    oauth.deny = true;
    const answer = await signIn(link.url).finally(() => {
      oauth.deny = false;
    });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('access_denied');
    expect(await connectionOf()).toHaveLength(1);
  });

  it('stores nothing when the code does not come with the state it was issued for', async () => {
    const link = (await (
      await owner('/v1/apps/calendar/connections/links', {
        method: 'POST',
        body: JSON.stringify({ kind: 'organisation', actingAs: 'ada@example.com' }),
      })
    ).json()) as { url: string };
    const posted = await fetch(link.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    const authorize = await fetch(posted.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location')!);
    callback.searchParams.set('state', 'forged-state-value-that-was-never-issued-0000');
    expect((await fetch(callback)).status).toBe(410);
    expect(await connectionOf()).toHaveLength(1);
    // No token appears in anything the broker printed.
    expect(lines.join('\n')).not.toMatch(/access_token|refresh_token/);
  });
});
