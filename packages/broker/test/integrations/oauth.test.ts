// OAuth connections against a real OAuth 2 server on loopback (spec 2.10, 3.2), with the
// example's `calendar` provider (examples/sales-crm): the connect page sends the person to the
// provider with PKCE and a one-time state, the provider app's own exchange Function (real Deno,
// reaching the server through --allow-net) turns the code into tokens, operations read the
// access token, an expiring token is refreshed once, and a rejected refresh asks for a new
// sign-in (the link goes to whoever manages the connection) that makes the connection active
// again, in Chromium.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorFromResponse, type PlatformError } from '@platform/errors';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import { pkceChallenge } from '../../src/integrations/oauth-states.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { TestClock } from '../auth/helpers.ts';
import { launchChromium, openPage } from '../helpers/chromium.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { startOAuthServer, type TestOAuthServer } from '../helpers/oauth-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const example = new URL('../../../../examples/sales-crm', import.meta.url).pathname;
const CLIENT_ID = 'sales-crm-example';

let root: { path: string; remove: () => Promise<void> };
let oauth: TestOAuthServer;
let ws: WorkspaceServer;
let browser: Browser;
const lines: string[] = [];

beforeAll(async () => {
  root = await tempDir('oauth-');
  // Access tokens live 30 s: always within the minute that asks for a refresh before use.
  oauth = await startOAuthServer({
    clientId: CLIENT_ID,
    redirectUri: () => `${ws.url}/v1/custom-integrations/oauth/callback`,
    accessTokenLifetime: 30,
  });
  await cp(example, root.path, { recursive: true });
  // The example names a calendar service on the internet; here it is the loopback server.
  const calendar = join(root.path, 'calendar');
  const yaml = join(calendar, 'platform.yaml');
  await writeFile(
    yaml,
    (await readFile(yaml, 'utf8')).replace('https://calendar.example.com/oauth', oauth.url),
  );
  await mkdir(join(calendar, '.platform'), { recursive: true });
  await writeFile(
    join(calendar, '.platform/secrets.json'),
    JSON.stringify({ CALENDAR_URL: oauth.url }),
  );
  ws = await startWorkspace({
    appDirs: ['crm', 'calendar', 'sales'].map((app) => join(root.path, app)),
    workspaceDir: root.path,
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    allowNet: [oauth.host],
    logWriter: (line) => lines.push(line),
  });
  const central = ws.apps[0]!.broker.central;
  const members = new Memberships(central);
  const [first] = (await members.list()).filter((m) => m.role === 'administrator');
  await members.invite(first!.accountId, 'ada@example.com');
  await new Accounts(central, central, new TestClock()).create('ada@example.com', 'confirmed');
  await members.setRole(first!.accountId, 'ada@example.com', 'administrator');
  const ada = (await members.list()).find((m) => m.email === 'ada@example.com')!.accountId;
  for (const app of ['crm', 'calendar', 'sales']) await ws.authority.setOwner(app, ada);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
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

/** The sales app's route that asks the `calendar` slot whose account it is connected to. */
const calendarAccount = () =>
  fetch(`http://127.0.0.1:${ws.app('sales')!.port}/api/calendar/account`);

/** Signs in through `connectUrl` in Chromium, as a person would; answers the page's text. */
async function signInInChromium(connectUrl: string): Promise<string> {
  const page = await openPage(browser);
  try {
    await page.goto(connectUrl);
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/v1/custom-integrations/oauth/callback'),
      page.click('button[type="submit"]'),
    ]);
    return (await page.textContent('body')) ?? '';
  } finally {
    await page.context().close();
  }
}

async function failure(response: Response): Promise<PlatformError> {
  expect(response.ok).toBe(false);
  return errorFromResponse(response);
}

/** A connect link for an organisation connection by ada (bound into `bind`, if given). */
async function newLink(bind?: { appId: string; slot: string }): Promise<string> {
  const response = await owner('/v1/apps/calendar/connections/links', {
    method: 'POST',
    body: JSON.stringify({ kind: 'organisation', actingAs: 'ada@example.com', bind }),
  });
  return ((await response.json()) as { url: string }).url;
}

/** Submits a connect page; answers its redirect to the provider, not followed. */
const submitPage = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
    redirect: 'manual',
  });

/** The `Cookie` header a browser sends back to the callback after `posted` set its cookie. */
const callbackCookie = (posted: Response) => posted.headers.getSetCookie()[0]!.split(';')[0]!;

/** Follows a connect link through the provider's sign-in; answers the callback's response. */
async function signIn(connectUrl: string): Promise<Response> {
  const page = await fetch(connectUrl);
  expect(await page.text()).toContain('Continue to sign in');
  const posted = await submitPage(connectUrl);
  expect(posted.status).toBe(303);
  const authorize = await fetch(posted.headers.get('location')!, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  return fetch(authorize.headers.get('location')!, {
    headers: { cookie: callbackCookie(posted) },
  });
}

const connectionOf = async () => {
  const { connections } = (await (await owner('/v1/apps/calendar/connections')).json()) as {
    connections: { id: string; condition: string }[];
  };
  return connections;
};

describe('an OAuth connection', () => {
  it('is made by signing in at the provider in a browser, with PKCE and a one-time state', async () => {
    const linkUrl = await newLink({ appId: 'sales', slot: 'calendar' });
    expect(await signInInChromium(linkUrl)).toContain('Team Calendar is connected');
    const query = oauth.authorizations.at(-1)!;
    expect(query.get('response_type')).toBe('code');
    expect(query.get('client_id')).toBe(CLIENT_ID);
    expect(query.get('redirect_uri')).toBe(`${ws.url}/v1/custom-integrations/oauth/callback`);
    expect(query.get('scope')).toBe('calendar.read');
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('state')!.length).toBeGreaterThanOrEqual(43);
    expect(oauth.grants.authorization_code).toBe(1);
    // The link is used up by the step to the provider.
    expect((await fetch(linkUrl)).status).toBe(410);
    expect(await connectionOf()).toHaveLength(1);

    const central = ws.apps[0]!.broker.central;
    const { rows } = await central.query<{ oauth_tokens: string; token_expires_at: Date }>(
      'SELECT oauth_tokens, token_expires_at FROM platform.connections',
    );
    expect(rows[0]!.token_expires_at).toBeInstanceOf(Date);
    // Sealed: neither token is readable in the central store.
    expect(rows[0]!.oauth_tokens).not.toMatch(/accessToken|refreshToken/);
  });

  it('an intercepted code is useless without the verifier, and a state is used once; nothing is stored', async () => {
    const linkUrl = await newLink();
    const posted = await submitPage(linkUrl);
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')!.startsWith(`${oauth.url}/authorize?`)).toBe(true);
    const authorize = await fetch(posted.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location')!);
    // Someone who saw the redirect tries the code at the token endpoint: without the verifier,
    // which never left the broker, the provider refuses it.
    const stolen = await fetch(`${oauth.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: CLIENT_ID,
        code: callback.searchParams.get('code')!,
        redirect_uri: `${ws.url}/v1/custom-integrations/oauth/callback`,
      }),
    });
    expect(stolen.status).toBe(400);
    // The failed attempt used the code up (the provider's rule against guessing): the sign-in
    // that follows cannot finish, and stores nothing.
    const headers = { cookie: callbackCookie(posted) };
    const done = await fetch(callback, { headers });
    expect(done.status).toBe(502);
    expect(await done.text()).toContain('could not be stored');
    // The same redirect again: the state is gone.
    expect((await fetch(callback, { headers })).status).toBe(410);
    expect(await connectionOf()).toHaveLength(1);
  });

  it('completes a sign-in only in the browser that submitted the connect page', async () => {
    // Mal submits a connect page, stops at the redirect to the provider and passes that address
    // on to Alice, whose browser has no cookie of the broker's.
    const posted = await submitPage(await newLink());
    const setCookie = posted.headers.getSetCookie()[0]!;
    expect(setCookie).toMatch(/^platform_oauth_[0-9a-f]{16}=/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('Path=/v1/custom-integrations/oauth/callback');
    expect(setCookie).toContain('SameSite=Lax');
    const authorize = await fetch(posted.headers.get('location')!, { redirect: 'manual' });
    const callback = authorize.headers.get('location')!;
    const exchanges = oauth.grants.authorization_code;
    const inAlice = await fetch(callback);
    expect(inAlice.status).toBe(403);
    expect(await inAlice.text()).toContain('This sign-in belongs to another browser');
    // Her code went nowhere and nothing was stored; nor can Mal finish with her code now.
    expect(oauth.grants.authorization_code).toBe(exchanges);
    expect(await connectionOf()).toHaveLength(1);
    const inMal = await fetch(callback, { headers: { cookie: callbackCookie(posted) } });
    expect(inMal.status).toBe(410);
    expect(await connectionOf()).toHaveLength(1);
  });

  it('derives the S256 challenge of RFC 7636 (the server checks the verifier against it)', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    // RFC 7636 appendix B.
    expect(pkceChallenge(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('answers live calls with the access token, refreshed once when it is about to expire', async () => {
    await owner('/v1/apps/sales/dev/integrations', {
      method: 'PUT',
      body: JSON.stringify({ slot: 'calendar', mode: 'live' }),
    });
    const before = oauth.grants.refresh_token;
    oauth.tokenDelayMs = 300;
    const answers = await Promise.all([
      calendarAccount(),
      calendarAccount(),
      calendarAccount(),
      calendarAccount(),
    ]);
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
    const refused = await failure(await calendarAccount());
    expect(refused.code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    // The public Function's anonymous caller does not manage the connection: no link for them.
    expect(refused.details?.connectUrl).toBeUndefined();
    expect((await connectionOf())[0]!.condition).toBe('reconnect_required');
    // Until then every call says so, without asking the provider again.
    const refreshes = oauth.grants.refresh_token;
    expect((await failure(await calendarAccount())).code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    expect(oauth.grants.refresh_token).toBe(refreshes);
    // The administrator asks for the link (`platform integrations reconnect`).
    const response = await owner('/v1/apps/calendar/connections/links', {
      method: 'POST',
      body: JSON.stringify({
        kind: 'organisation',
        actingAs: 'ada@example.com',
        connectionId: (await connectionOf())[0]!.id,
      }),
    });
    const connectUrl = ((await response.json()) as { url: string }).url;
    expect(connectUrl.startsWith(`${ws.url}/v1/custom-integrations/connect/`)).toBe(true);

    // The person signs in again in a real browser: the provider sends them straight back.
    expect(await signInInChromium(connectUrl)).toContain('Team Calendar is connected');
    expect((await connectionOf())[0]!.condition).toBe('active');
    expect(await connectionOf()).toHaveLength(1);
    const again = await calendarAccount();
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ result: { user: 'user-1' } });
  });

  it('a direct invocation with the test connection gets its current access token', async () => {
    const [connection] = await connectionOf();
    const chosen = await owner('/v1/apps/calendar/dev/integrations', {
      method: 'PUT',
      body: JSON.stringify({ testConnection: connection!.id, actingAs: 'ada@example.com' }),
    });
    expect(chosen.status).toBe(200);
    const invoked = await fetch(
      `http://127.0.0.1:${ws.app('calendar')!.port}/v1/apps/calendar/invoke/account`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: {} }),
      },
    );
    expect(invoked.status).toBe(200);
    expect(await invoked.json()).toMatchObject({ result: { user: 'user-1' } });
    // The exchange and refresh Functions are the platform's to call.
    const exchange = await fetch(
      `http://127.0.0.1:${ws.app('calendar')!.port}/v1/apps/calendar/invoke/exchangeCode`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: {} }),
      },
    );
    expect((await failure(exchange)).code).toBe('INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE');
  });

  it('stores nothing when the person declines at the provider', async () => {
    const linkUrl = await newLink();
    oauth.deny = true;
    const answer = await signIn(linkUrl).finally(() => {
      oauth.deny = false;
    });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('access_denied');
    expect(await connectionOf()).toHaveLength(1);
  });

  it('stores nothing when the code does not come with the state it was issued for', async () => {
    const linkUrl = await newLink();
    const posted = await submitPage(linkUrl);
    const authorize = await fetch(posted.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location')!);
    callback.searchParams.set('state', 'forged-state-value-that-was-never-issued-0000');
    expect((await fetch(callback)).status).toBe(410);
    expect(await connectionOf()).toHaveLength(1);
    // No token appears in anything the broker printed.
    expect(lines.join('\n')).not.toMatch(/access_token|refresh_token/);
  });
});
