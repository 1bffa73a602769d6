// The test kit (@platform/server/testing) and the broker answer integration calls and emits alike
// under development defaults: both run `checkIntegrationCall` and `checkEmit` of
// @platform/schema/contract, so the same call gets the same fake or the same error code, with and
// without a signed-in user, and the same emit the same count or code.
import { isPlatformError, type JsonValue } from '@platform/errors';
import { parseManifest } from '@platform/schema/manifest';
import {
  createTestContext,
  integrationEvent,
  integrationSlotsFrom,
} from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import { anonymousCaller, userCaller } from '../../src/kernel/caller.ts';
import { openTestCentral } from '../helpers/db.ts';
import { orgApp } from './helpers.ts';

const head = 'schemaVersion: 3\nruntime:\n  sdk:\n    version: 2.6.0\n';
const manifest = (yaml: string) => {
  const parsed = parseManifest(head + yaml);
  if (!parsed.manifest) throw new Error(JSON.stringify(parsed.errors));
  return parsed.manifest;
};

const crm = manifest(`functions:
  - { name: list, entrypoint: f.ts, access: system }
provides:
  integration:
    name: crm
    title: CRM
    capabilities:
      - { name: contacts.read, description: Read. }
      - { name: contacts.write, description: Write. }
    operations:
      - name: contacts.list
        description: Lists contacts.
        capability: contacts.read
        function: list
        fake: { contacts: [{ name: Ada }] }
      - name: contacts.add
        description: Adds one.
        capability: contacts.write
        function: list
        fake: { added: true }
    events:
      - { type: contact.updated, capability: contacts.read, description: Changed., fake: {} }
`);
const shop = manifest(`integrations:
  crm: { provider: custom, integration: crm, account: app, capabilities: [contacts.read] }
  mine: { provider: custom, integration: crm, account: calling_user, capabilities: [contacts.read] }
  billing: { provider: custom, integration: billing, account: app, capabilities: [invoices.read] }
  feed:
    provider: custom
    integration: crm
    account: app
    capabilities: [contacts.read]
    events: { function: onEvent }
`);
/** The payloads the broker handed to shop's events Function. */
const handed: JsonValue[] = [];

const USER = '1a2b3c4d-1111-4aaa-8bbb-000000000001';
let central: Database;
let integrations: OrgIntegrations;

beforeAll(async () => {
  central = await openTestCentral();
  integrations = await openOrgIntegrations({
    central,
    dir: undefined,
    apps: () => [
      orgApp('crm', crm),
      {
        ...orgApp('shop', shop),
        runSystem: async (_fn, payload) => {
          handed.push(payload);
          return null;
        },
      },
    ],
    baseUrl: () => 'http://127.0.0.1:1',
    print: () => {},
  });
}, 60_000);
afterAll(() => central?.close());

type Outcome = { output: JsonValue } | { code: string };
const outcome = async (run: () => Promise<JsonValue>): Promise<Outcome> => {
  try {
    return { output: await run() };
  } catch (error) {
    if (isPlatformError(error)) return { code: error.code };
    throw error;
  }
};

const cases: Array<[string, string, string, boolean, Outcome]> = [
  [
    'the fake of a granted operation',
    'crm',
    'contacts.list',
    false,
    { output: { contacts: [{ name: 'Ada' }] } },
  ],
  ['an undeclared slot', 'nope', 'contacts.list', false, { code: 'INTEGRATION_SLOT_NOT_DECLARED' }],
  [
    'an unknown operation',
    'crm',
    'contacts.drop',
    false,
    { code: 'INTEGRATION_OPERATION_NOT_FOUND' },
  ],
  [
    'a capability the slot does not request',
    'crm',
    'contacts.add',
    false,
    { code: 'INTEGRATION_CAPABILITY_NOT_GRANTED' },
  ],
  [
    'an integration nobody publishes',
    'billing',
    'invoices.list',
    false,
    { code: 'INTEGRATION_NOT_FOUND' },
  ],
  [
    'a calling_user slot without a user',
    'mine',
    'contacts.list',
    false,
    { code: 'INTEGRATION_USER_REQUIRED' },
  ],
  [
    'a calling_user slot with a user',
    'mine',
    'contacts.list',
    true,
    { output: { contacts: [{ name: 'Ada' }] } },
  ],
];

describe('integration calls: test kit and broker agree', () => {
  it.each(cases)('%s', async (_, slot, operation, signedIn, expected) => {
    const kit = createTestContext({
      integrationSlots: integrationSlotsFrom(shop, [crm]),
      user: signedIn ? { id: USER } : null,
    });
    const fromKit = await outcome(() => kit.integrations.use(slot).call(operation, {}));
    const fromBroker = await outcome(() =>
      integrations.calls.call({
        consumerAppId: 'shop',
        manifest: shop,
        caller: signedIn ? userCaller(USER) : anonymousCaller,
        slot,
        operation,
        input: {},
        requestId: 'req_parity',
      }),
    );
    expect(fromBroker).toEqual(expected);
    expect(fromKit).toEqual(fromBroker);
  });
});

const emits: Array<[string, string, string, number, Outcome]> = [
  ['a declared event in development', 'webhook', 'contact.updated', 10, { output: 0 }],
  ['an undeclared event', 'sync', 'contact.deleted', 10, { code: 'INTEGRATION_EVENT_INVALID' }],
  ['an emit during OAuth', 'oauth', 'contact.updated', 10, { code: 'INTEGRATION_EVENT_INVALID' }],
  ['data over 64 KiB', 'operation', 'contact.updated', 64 * 1024, { code: 'LIMIT_EXCEEDED' }],
];

describe('integration.emit: test kit and broker agree', () => {
  it.each(emits)('%s', async (_, trigger, type, size, expected) => {
    const event = { type, id: 'evt-1', data: { note: 'x'.repeat(size) } };
    const kit = createTestContext({
      providedIntegration: crm.provides?.integration,
      integration: { connectionId: 'con_1', trigger: trigger as 'webhook' },
    });
    const fromKit = await outcome(() => kit.integration!.emit(event));
    const fromBroker = await outcome(() =>
      integrations.events.emit('crm', { connectionId: 'con_1', trigger }, event),
    );
    expect(fromBroker).toEqual(expected);
    expect(fromKit).toEqual(fromBroker);
  });
});

const injected: Array<[string, string, string, Outcome]> = [
  [
    'a subscribed event, with its declared fake',
    'feed',
    'contact.updated',
    {
      output: {
        type: 'contact.updated',
        integration: 'feed',
        provider: 'custom',
        bindingId: null,
        data: {},
      },
    },
  ],
  [
    'an event the contract does not declare',
    'feed',
    'contact.deleted',
    { code: 'INTEGRATION_EVENT_INVALID' },
  ],
  [
    'a slot that subscribes to no events',
    'crm',
    'contact.updated',
    { code: 'INTEGRATION_EVENT_INVALID' },
  ],
  ['an undeclared slot', 'nope', 'contact.updated', { code: 'INTEGRATION_SLOT_NOT_DECLARED' }],
];

// The payload of spec 2.11 as the broker hands it to an events Function (an event injected in
// development) and as the test kit builds it for one: `provider` is the slot's, `custom`.
describe('integration event payloads: test kit and broker agree', () => {
  it.each(injected)('%s', async (_, slot, type, expected) => {
    const withoutIdAndTime = (payload: JsonValue) => {
      const { id, occurredAt, ...rest } = payload as Record<string, JsonValue>;
      expect(typeof id).toBe('string');
      expect(typeof occurredAt).toBe('string');
      return rest as JsonValue;
    };
    const fromKit = await outcome(async () =>
      withoutIdAndTime(integrationEvent(shop, slot, { type }, [crm]).input as unknown as JsonValue),
    );
    handed.length = 0;
    const fromBroker = await outcome(async () => {
      await integrations.events.inject('shop', slot, { type }, 'req_parity');
      expect(handed).toHaveLength(1);
      return withoutIdAndTime(handed[0]!);
    });
    expect(fromBroker).toEqual(expected);
    expect(fromKit).toEqual(fromBroker);
  });
});
