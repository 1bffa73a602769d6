// A `calling_user` slot acts with the signed-in person's own personal connection (spec 5.4): a
// person without one gets INTEGRATION_CONNECTION_REQUIRED with a connect URL where they connect
// and bind in one step; nobody binds another person's connection into such a slot. Development
// answers these slots with fakes, so this runs the calls as production does.
import { isPlatformError } from '@platform/errors';
import { parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { centralAuthority } from '../../src/org/authority.ts';
import { openTestCentral } from '../helpers/db.ts';
import { organisationMembers } from '../helpers/organisation.ts';
import { orgApp } from './helpers.ts';

const head = 'schemaVersion: 3\nruntime:\n  sdk:\n    version: 2.6.0\n';
const crm = parseManifest(`${head}functions:
  - { name: op, entrypoint: f.ts, access: system }
provides:
  integration:
    name: crm
    title: CRM
    credentials:
      - { name: CRM_API_KEY, label: Key }
    capabilities:
      - { name: contacts.read, description: Read. }
    operations:
      - { name: me.get, description: Who., capability: contacts.read, function: op, fake: {} }
`).manifest!;
const shop = parseManifest(`${head}integrations:
  mine: { provider: custom, integration: crm, account: calling_user, capabilities: [contacts.read] }
`).manifest!;

const BASE = 'http://127.0.0.1:4999';
let central: Database;
let org: OrgIntegrations;
const id: Record<string, string> = {};

beforeAll(async () => {
  central = await openTestCentral();
  const ids = await organisationMembers(central, ['ada@example.com', 'pat@example.com']);
  for (const name of ['ada', 'pat']) id[name] = ids[`${name}@example.com`]!;
  await centralAuthority(central).register(['crm', 'shop']);
  org = await openOrgIntegrations({
    central,
    dir: undefined,
    environment: 'production',
    apps: () => [
      orgApp('crm', crm, async (_, call) => ({ key: call.credentials.CRM_API_KEY ?? null })),
      orgApp('shop', shop),
    ],
    baseUrl: () => BASE,
    print: () => {},
  });
}, 60_000);
afterAll(() => central?.close());

const callAs = (who: string) =>
  org.calls.call({
    consumerAppId: 'shop',
    manifest: shop,
    caller: userCaller(id[who]!),
    slot: 'mine',
    operation: 'me.get',
    input: {},
    requestId: 'req_1',
  });

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (isPlatformError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
};

describe('a calling_user slot', () => {
  it('asks a person without a connection to connect, and binds it in the same step', async () => {
    const missing = await failure(callAs('pat'));
    expect(missing.code).toBe('INTEGRATION_CONNECTION_REQUIRED');
    const connectUrl = String(missing.details?.connectUrl);
    expect(connectUrl.startsWith(`${BASE}/v1/custom-integrations/connect/`)).toBe(true);
    const token = connectUrl.slice(connectUrl.lastIndexOf('/') + 1);
    const { binding } = await org.admin.submit(token, { CRM_API_KEY: 'pat-key-1' });
    expect(binding).toMatchObject({
      slot: 'mine',
      account: 'calling_user',
      personAccountId: id.pat,
    });
    expect(await callAs('pat')).toEqual({ key: 'pat-key-1' });
  });

  it("acts with each person's own connection only", async () => {
    expect((await failure(callAs('ada'))).code).toBe('INTEGRATION_CONNECTION_REQUIRED');
    const [patConnection] = await org.connections.list('crm');
    const refused = await failure(org.admin.bind(id.ada!, 'shop', 'mine', patConnection!.id));
    expect(refused.code).toBe('PERMISSION_DENIED');
    expect(refused.details).toMatchObject({ rule: 'calling-user-own-connection' });
  });

  it('is never bound by an agent, not even the person’s own (spec 5.4)', async () => {
    const [patConnection] = await org.connections.list('crm');
    const refused = await failure(
      org.admin.bind(id.pat!, 'shop', 'mine', patConnection!.id, { owns: true }),
    );
    expect(refused.code).toBe('PERMISSION_DENIED');
    expect(refused.details).toMatchObject({ rule: 'agent-calling-user' });
  });

  it('carries details.connectUrl only to Functions pinned to SDK 2.6.0 or later (spec 7.2, 9)', async () => {
    const older = parseManifest(`schemaVersion: 3
runtime:
  sdk:
    version: 2.5.0
integrations:
  mine: { provider: custom, integration: crm, account: calling_user, capabilities: [contacts.read] }
`).manifest!;
    const links = async () =>
      Number(
        (await central.query<{ n: number }>('SELECT count(*) AS n FROM platform.connect_links'))
          .rows[0]?.n,
      );
    const before = await links();
    const missing = await failure(
      org.calls.call({
        consumerAppId: 'shop',
        manifest: older,
        caller: userCaller(id.ada!),
        slot: 'mine',
        operation: 'me.get',
        input: {},
        requestId: 'req_2',
      }),
    );
    expect(missing.code).toBe('INTEGRATION_CONNECTION_REQUIRED');
    expect(missing.details).toEqual({ slot: 'mine' });
    // No link was made for a Function that cannot pass it on.
    expect(await links()).toBe(before);
    // The same call from a Function pinned to 2.6.0 carries it.
    expect((await failure(callAs('ada'))).details).toMatchObject({
      connectUrl: expect.stringContaining('/v1/custom-integrations/connect/'),
    });
  });
});
