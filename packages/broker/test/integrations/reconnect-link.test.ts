// Who receives the link to sign an OAuth connection in again (spec 3.2, 5.4). The link stands
// in for a person's sign-in: whoever opens it signs the connection in as whoever they are at
// the provider. So a call that finds the connection `Reconnect required` answers the link only
// to a caller who manages that connection, made out to that caller; an anonymous visitor, a
// system Function and a member who does not manage it get the code without a link, and no link
// is minted for them.
import { isPlatformError, PlatformError } from '@platform/errors';
import { parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import { anonymousCaller, type Caller, systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { centralAuthority } from '../../src/org/authority.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { openTestCentral } from '../helpers/db.ts';
import { organisationMembers } from '../helpers/organisation.ts';
import { orgApp } from './helpers.ts';

const head = 'schemaVersion: 3\nruntime:\n  sdk:\n    version: 2.6.0\n';
const calendar = parseManifest(`${head}functions:
  - { name: exchange, entrypoint: f.ts, access: system }
  - { name: refresh, entrypoint: f.ts, access: system }
  - { name: op, entrypoint: f.ts, access: system }
provides:
  integration:
    name: calendar
    title: Calendar
    credentials: []
    authorization:
      type: oauth2
      authorizationUrl: https://calendar.example.com/authorize
      clientId: shop
      scopes: [calendar.read]
      exchange: exchange
      refresh: refresh
    capabilities:
      - { name: calendar.read, description: Read. }
    operations:
      - { name: account.get, description: Who., capability: calendar.read, function: op, fake: {} }
`).manifest!;
const consumer = parseManifest(`${head}integrations:
  team: { provider: custom, integration: calendar, account: app, capabilities: [calendar.read] }
`).manifest!;

const BASE = 'http://127.0.0.1:4999';
let central: Database;
let org: OrgIntegrations;
const id: Record<string, string> = {};
// The provider rejects every token: each live call marks the connection `Reconnect required`.
const rejectAll = async () => {
  throw new PlatformError({ code: 'UNAUTHORIZED', message: 'token rejected', status: 401 });
};

beforeAll(async () => {
  central = await openTestCentral();
  const members = new Memberships(central);
  const ids = await organisationMembers(
    central,
    ['ada', 'bob', 'pat'].map((name) => `${name}@example.com`),
  );
  for (const name of ['ada', 'bob', 'pat']) id[name] = ids[`${name}@example.com`]!;
  const admin = (await members.list()).find((m) => m.role === 'administrator')!.accountId;
  for (const name of ['ada', 'bob']) {
    await members.setRole(admin, `${name}@example.com`, 'administrator');
  }
  expect((await members.roleOf(id.pat!)) ?? 'member').toBe('member');
  const authority = centralAuthority(central);
  await authority.register(['calendar', 'shop', 'desk']);
  await authority.setOwner('shop', id.ada!);
  await authority.setOwner('desk', id.pat!);
  org = await openOrgIntegrations({
    central,
    dir: undefined,
    environment: 'production',
    apps: () => [
      orgApp('calendar', calendar, rejectAll),
      orgApp('shop', consumer),
      orgApp('desk', consumer),
    ],
    baseUrl: () => BASE,
    print: () => {},
  });
  const grant = { accessToken: 'access-token-value', refreshToken: null, expiresAt: null };
  // Ada's organisation connection serves shop; Pat's personal connection serves his own desk.
  const shared = await org.connections.create({
    integration: 'calendar',
    providerAppId: 'calendar',
    kind: 'organisation',
    createdBy: id.ada!,
    values: {},
    grant,
  });
  await org.admin.bind(id.ada!, 'shop', 'team', shared.id);
  const own = await org.connections.create({
    integration: 'calendar',
    providerAppId: 'calendar',
    kind: 'personal',
    createdBy: id.pat!,
    values: {},
    grant,
  });
  await org.admin.bind(id.pat!, 'desk', 'team', own.id);
}, 60_000);
afterAll(() => central?.close());

const call = async (appId: 'shop' | 'desk', caller: Caller): Promise<PlatformError> => {
  try {
    await org.calls.call({
      consumerAppId: appId,
      manifest: consumer,
      caller,
      slot: 'team',
      operation: 'account.get',
      input: {},
      requestId: 'req_1',
    });
  } catch (error) {
    if (isPlatformError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
};

const linkCount = async () =>
  Number(
    (await central.query<{ n: string }>('SELECT count(*) AS n FROM platform.connect_links'))
      .rows[0]!.n,
  );

/** The account a connect link is made out to. */
async function linkHolder(connectUrl: unknown): Promise<string> {
  const url = String(connectUrl);
  expect(url.startsWith(`${BASE}/v1/custom-integrations/connect/`)).toBe(true);
  const opened = await org.admin.openLink(url.slice(url.lastIndexOf('/') + 1));
  return opened!.link.accountId;
}

describe('the link to sign a connection in again', () => {
  it('never reaches an anonymous visitor, a system Function or a member of an organisation connection', async () => {
    // The provider's 401 marks the connection; the anonymous caller of the public Function
    // learns that, and nothing more.
    const first = await call('shop', anonymousCaller);
    expect(first.code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    expect((await org.connections.list('calendar')).map((c) => c.condition)).toContain(
      'reconnect_required',
    );
    const before = await linkCount();
    for (const caller of [anonymousCaller, systemCaller(), userCaller(id.pat!)]) {
      const refused = await call('shop', caller);
      expect(refused.code).toBe('INTEGRATION_RECONNECT_REQUIRED');
      expect(refused.details?.connectUrl).toBeUndefined();
      expect(refused.message).toContain('an organisation administrator');
    }
    expect(first.details?.connectUrl).toBeUndefined();
    // Nothing was minted on their behalf, for the creator or anyone else.
    expect(await linkCount()).toBe(before);
  });

  it('reaches an organisation administrator, made out to that administrator', async () => {
    const asCreator = await call('shop', userCaller(id.ada!));
    expect(await linkHolder(asCreator.details?.connectUrl)).toBe(id.ada);
    // Another administrator gets a link of their own, not one acting as the creator.
    const asOther = await call('shop', userCaller(id.bob!));
    expect(await linkHolder(asOther.details?.connectUrl)).toBe(id.bob);
  });

  it('of a personal connection reaches its owner only, administrators included', async () => {
    const asOwner = await call('desk', userCaller(id.pat!));
    expect(asOwner.code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    expect(await linkHolder(asOwner.details?.connectUrl)).toBe(id.pat);
    const before = await linkCount();
    for (const caller of [anonymousCaller, userCaller(id.ada!)]) {
      const refused = await call('desk', caller);
      expect(refused.details?.connectUrl).toBeUndefined();
      expect(refused.message).toContain('the owner of its personal connection');
    }
    expect(await linkCount()).toBe(before);
  });
});
