// The OAuth sign-in around the provider's exchange Function (spec 2.10): it receives the code,
// the redirect URI and the verifier of the challenge sent to the provider (none without PKCE),
// the entered credential values and never an access token; an answer of the wrong shape stores
// nothing, and the state cannot be used again.
import { type JsonValue, PlatformError } from '@platform/errors';
import { type Manifest, parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/auth/accounts.ts';
import type { Database } from '../../src/db/database.ts';
import { pkceChallenge } from '../../src/integrations/oauth-states.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import type { ProviderCall } from '../../src/integrations/provider-app.ts';
import { centralAuthority } from '../../src/org/authority.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { TestClock } from '../auth/helpers.ts';
import { openTestCentral } from '../helpers/db.ts';
import { orgApp } from './helpers.ts';

const provider = (pkce: boolean): Manifest =>
  parseManifest(`schemaVersion: 3
runtime: { sdk: { version: 2.6.0 } }
functions:
  - { name: exchange, entrypoint: f.ts, access: system }
  - { name: list, entrypoint: f.ts, access: system }
provides:
  integration:
    name: ${pkce ? 'docs' : 'legacy'}
    title: Docs
    credentials:
      - { name: TENANT, label: Tenant, secret: false }
    authorization:
      type: oauth2
      authorizationUrl: https://docs.example/authorize
      clientId: docs-client
      scopes: [read, write]
      exchange: exchange
      pkce: ${pkce}
    capabilities:
      - { name: read, description: Read. }
    operations:
      - { name: files.list, description: List., capability: read, function: list, fake: [] }
`).manifest!;

let central: Database;
let org: OrgIntegrations;
let admin: string;
const exchanges: ProviderCall[] = [];
let answer: JsonValue = {};
let fails: PlatformError | undefined;

beforeAll(async () => {
  central = await openTestCentral();
  admin = (
    await new Accounts(central, central, new TestClock()).create('ada@example.com', 'confirmed')
  ).id;
  await centralAuthority(central).register(['docs', 'legacy']);
  const members = new Memberships(central);
  const [first] = (await members.list()).filter((m) => m.role === 'administrator');
  await members.setRole(first!.accountId, 'ada@example.com', 'administrator');
  const invoke = async (_: string, call: ProviderCall) => {
    exchanges.push(call);
    if (fails) throw fails;
    return answer;
  };
  org = await openOrgIntegrations({
    central,
    dir: undefined,
    apps: () => [orgApp('docs', provider(true), invoke), orgApp('legacy', provider(false), invoke)],
    baseUrl: () => 'http://localhost:4310',
    print: () => {},
  });
}, 60_000);
afterAll(() => central?.close());

/** The secret of the browser these sign-ins start in (its callback cookie's value). */
const BROWSER = 'the-browser-that-submitted-the-page';

/** Starts a sign-in for an organisation connection; answers the provider's authorization URL. */
async function begin(providerAppId: string): Promise<URL> {
  const { url } = await org.admin.createLink(admin, { providerAppId, kind: 'organisation' });
  const token = url.slice(url.lastIndexOf('/') + 1);
  const { redirect } = await org.admin.submit(token, { TENANT: 'acme' }, BROWSER);
  return new URL(redirect!);
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: PlatformError) => error,
  );

describe('the OAuth exchange', () => {
  it('gets the code, the redirect URI and the verifier of the challenge, never a token', async () => {
    const authorize = await begin('docs');
    expect(authorize.searchParams.get('scope')).toBe('read write');
    answer = { accessToken: 'at-1', refreshToken: 'rt-1', expiresIn: 3600 };
    exchanges.length = 0;
    const { connection } = await org.admin.finishSignIn(
      authorize.searchParams.get('state')!,
      'code-1',
      'req',
      BROWSER,
    );
    const [call] = exchanges;
    const input = call!.input as { code: string; redirectUri: string; codeVerifier: string };
    expect(input.code).toBe('code-1');
    expect(input.redirectUri).toBe('http://localhost:4310/v1/custom-integrations/oauth/callback');
    expect(pkceChallenge(input.codeVerifier)).toBe(authorize.searchParams.get('code_challenge'));
    expect(call).toMatchObject({
      trigger: 'oauth',
      connectionId: connection!.id,
      credentials: { TENANT: 'acme' },
    });
    expect(Object.keys(call!.credentials)).not.toContain('OAUTH_ACCESS_TOKEN');
    expect(await org.connections.grant(connection!.id)).toMatchObject({
      accessToken: 'at-1',
      refreshToken: 'rt-1',
    });
  });

  it('sends no challenge and no verifier when the contract turns PKCE off', async () => {
    const authorize = await begin('legacy');
    expect(authorize.searchParams.has('code_challenge')).toBe(false);
    expect(authorize.searchParams.has('code_challenge_method')).toBe(false);
    answer = { accessToken: 'at-2' };
    exchanges.length = 0;
    await org.admin.finishSignIn(authorize.searchParams.get('state')!, 'code-2', 'req', BROWSER);
    expect(exchanges[0]!.input).toMatchObject({ codeVerifier: null });
  });

  it('stores nothing when the exchange answers the wrong shape, and the state is spent', async () => {
    const before = (await org.connections.list('docs')).length;
    const authorize = await begin('docs');
    const state = authorize.searchParams.get('state')!;
    for (const wrong of [{}, { accessToken: '' }, { accessToken: 'x', expiresIn: -5 }, 'token']) {
      answer = wrong;
      const refused = await failure(
        org.admin.finishSignIn(
          (await begin('docs')).searchParams.get('state')!,
          'c',
          'req',
          BROWSER,
        ),
      );
      expect(refused.code).toBe('INTEGRATION_PROVIDER_FAILED');
      expect(refused.message).toContain('{ accessToken, refreshToken?, expiresIn? }');
    }
    answer = {};
    await failure(org.admin.finishSignIn(state, 'c', 'req', BROWSER));
    answer = { accessToken: 'fine' };
    const again = await failure(org.admin.finishSignIn(state, 'c', 'req', BROWSER));
    expect(again.details).toMatchObject({ reason: 'link-unusable' });
    expect(await org.connections.list('docs')).toHaveLength(before);
  });

  it('completes only in the browser that submitted the page; elsewhere it is spent, storing nothing', async () => {
    const before = (await org.connections.list('docs')).length;
    answer = { accessToken: 'at-3' };
    for (const elsewhere of [undefined, 'another-browser-secret']) {
      const state = (await begin('docs')).searchParams.get('state')!;
      exchanges.length = 0;
      const refused = await failure(org.admin.finishSignIn(state, 'code-3', 'req', elsewhere));
      expect(refused.code).toBe('PERMISSION_DENIED');
      expect(refused.details).toMatchObject({ reason: 'other-browser' });
      // The code never reached the provider's exchange.
      expect(exchanges).toHaveLength(0);
      // The code came back to someone else: not even the starting browser completes with it.
      const spent = await failure(org.admin.finishSignIn(state, 'code-3', 'req', BROWSER));
      expect(spent.details).toMatchObject({ reason: 'link-unusable' });
    }
    expect(await org.connections.list('docs')).toHaveLength(before);
  });

  it('stores nothing when the exchange fails, without passing the provider’s words on', async () => {
    const before = (await org.connections.list('docs')).length;
    const authorize = await begin('docs');
    // A provider whose error repeats the code it was sent.
    fails = new PlatformError({ code: 'BAD_CODE', message: 'invalid code c-5f2a91', status: 401 });
    const refused = await failure(
      org.admin.finishSignIn(authorize.searchParams.get('state')!, 'c-5f2a91', 'req', BROWSER),
    );
    fails = undefined;
    expect(refused.code).toBe('INTEGRATION_PROVIDER_FAILED');
    expect(JSON.stringify(refused)).not.toContain('c-5f2a91');
    expect(refused.message).not.toContain('c-5f2a91');
    expect(await org.connections.list('docs')).toHaveLength(before);
  });
});
