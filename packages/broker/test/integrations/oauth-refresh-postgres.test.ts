// The OAuth refresh of a connection runs once at a time (spec 8), also when two brokers share
// one PostgreSQL: each side here has its own connection pool to the central store, its own
// in-process bookkeeping and its own view of the provider, as two broker processes would.
import { type JsonValue, PlatformError } from '@platform/errors';
import { type IntegrationContract, parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCentralStore } from '../../src/app/open-central.ts';
import type { Database } from '../../src/db/database.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import type { ProviderCall } from '../../src/integrations/provider-app.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { orgApp } from './helpers.ts';

const parsed = parseManifest(`schemaVersion: 3
runtime: { sdk: { version: 2.6.0 } }
functions:
  - { name: exchange, entrypoint: f.ts, access: system }
  - { name: refresh, entrypoint: f.ts, access: system }
  - { name: list, entrypoint: f.ts, access: system }
provides:
  integration:
    name: calendar
    title: Calendar
    credentials:
      - { name: TENANT, label: Tenant, secret: false }
    authorization:
      type: oauth2
      authorizationUrl: https://calendar.example/authorize
      clientId: abc
      scopes: [read]
      exchange: exchange
      refresh: refresh
    capabilities:
      - { name: read, description: Read. }
    operations:
      - { name: events.list, description: List., capability: read, function: list, fake: [] }
`);
const manifest = parsed.manifest!;
const contract = manifest.provides?.integration as IntegrationContract;

let pg: PostgresServer;
let dir: { path: string; remove: () => Promise<void> };
const stores: Database[] = [];
const sides: OrgIntegrations[] = [];
/** The refresh calls both sides made, with what each received. */
const refreshes: ProviderCall[] = [];
let answer: (call: ProviderCall) => Promise<JsonValue>;

const provider = orgApp('calendar', manifest, async (fn, call) => {
  if (fn !== 'refresh') throw new Error(`unexpected ${fn}`);
  refreshes.push(call);
  return answer(call);
});

beforeAll(async () => {
  pg = await startPostgres();
  dir = await tempDir('oauth-refresh-');
  const url = await pg.createDatabase('refresh_server');
  for (let i = 0; i < 2; i++) {
    const central = await openCentralStore({ dir: dir.path, databaseUrl: url });
    stores.push(central);
    sides.push(
      await openOrgIntegrations({
        central,
        dir: dir.path,
        apps: () => [provider],
        baseUrl: () => 'http://localhost:4310',
        print: () => {},
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  await pg?.stop();
  await dir?.remove();
});

/** A connection whose access token expires in `seconds`. */
async function connection(seconds: number): Promise<string> {
  const { id } = await sides[0]!.connections.create({
    integration: 'calendar',
    providerAppId: 'calendar',
    kind: 'organisation',
    createdBy: '00000000-0000-4000-8000-000000000001',
    values: { TENANT: 'acme' },
    grant: {
      accessToken: 'access-0',
      refreshToken: 'refresh-0',
      expiresAt: new Date(Date.now() + seconds * 1000),
    },
  });
  return id;
}

const credentialsFrom = (side: OrgIntegrations, id: string) =>
  side.tokens.credentials(id, contract, provider, 'req');

describe('the OAuth refresh across two brokers on one PostgreSQL', () => {
  it('refreshes an expiring token once for eight concurrent calls on both sides', async () => {
    const id = await connection(30);
    refreshes.length = 0;
    answer = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { accessToken: 'access-1', expiresIn: 3600 };
    };
    const all = await Promise.all(
      [0, 1, 0, 1, 0, 1, 0, 1].map((side) => credentialsFrom(sides[side]!, id)),
    );
    expect(refreshes).toHaveLength(1);
    for (const credentials of all) {
      expect(credentials).toEqual({ TENANT: 'acme', OAUTH_ACCESS_TOKEN: 'access-1' });
    }
    // The refresh Function received the refresh token and the values, never an access token.
    expect(refreshes[0]).toMatchObject({
      input: { refreshToken: 'refresh-0' },
      trigger: 'oauth',
      connectionId: id,
      credentials: { TENANT: 'acme' },
    });
    expect(Object.keys(refreshes[0]!.credentials)).not.toContain('OAUTH_ACCESS_TOKEN');
    // No refresh token came back: the previous one is kept.
    expect((await sides[1]!.connections.grant(id))?.refreshToken).toBe('refresh-0');
    // Fresh now: no further refresh.
    await credentialsFrom(sides[1]!, id);
    expect(refreshes).toHaveLength(1);
  });

  it('a token far from expiry is used as it is', async () => {
    const id = await connection(3600);
    refreshes.length = 0;
    expect(await credentialsFrom(sides[0]!, id)).toEqual({
      TENANT: 'acme',
      OAUTH_ACCESS_TOKEN: 'access-0',
    });
    expect(refreshes).toHaveLength(0);
  });

  it('a rejected refresh marks the connection Reconnect required on both sides, once', async () => {
    const id = await connection(10);
    refreshes.length = 0;
    answer = async () => {
      await new Promise((r) => setTimeout(r, 200));
      throw new PlatformError({ code: 'TOKEN_REJECTED', message: 'invalid_grant', status: 401 });
    };
    const codes = await Promise.all(
      [0, 1, 1, 0].map((side) =>
        credentialsFrom(sides[side]!, id).then(
          () => 'resolved',
          (error: PlatformError) => error.code,
        ),
      ),
    );
    expect(codes).toEqual(Array(4).fill('INTEGRATION_RECONNECT_REQUIRED'));
    expect(refreshes).toHaveLength(1);
    expect((await sides[1]!.connections.get(id)).condition).toBe('reconnect_required');
  });

  it('a refresh that fails for a while leaves the connection active and says to try again', async () => {
    const id = await connection(10);
    refreshes.length = 0;
    answer = async () => {
      throw new PlatformError({ code: 'DOWN', message: 'down', status: 503, retryable: true });
    };
    await expect(credentialsFrom(sides[0]!, id)).rejects.toMatchObject({
      code: 'INTEGRATION_PROVIDER_UNAVAILABLE',
    });
    expect((await sides[0]!.connections.get(id)).condition).toBe('active');
    answer = async () => ({ accessToken: 'access-2', refreshToken: 'refresh-2', expiresIn: 600 });
    expect((await credentialsFrom(sides[1]!, id)).OAUTH_ACCESS_TOKEN).toBe('access-2');
    expect((await sides[0]!.connections.grant(id))?.refreshToken).toBe('refresh-2');
  });
});
