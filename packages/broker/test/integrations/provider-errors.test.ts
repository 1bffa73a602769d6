// How a live call reports what the provider did (spec 7.1, 7.2): a typed 4xx reaches the
// consumer unchanged, 401 marks the connection Reconnect required, a timeout or another
// retryable failure is INTEGRATION_PROVIDER_UNAVAILABLE, anything else, an oversized output or
// one that breaks the declared output schema INTEGRATION_PROVIDER_FAILED; no message carries a
// credential value.
import { errors, isPlatformError, type JsonValue, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/auth/accounts.ts';
import type { Database } from '../../src/db/database.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import type { ProviderCall } from '../../src/integrations/provider-app.ts';
import { anonymousCaller } from '../../src/kernel/caller.ts';
import { centralAuthority } from '../../src/org/authority.ts';
import { TestClock } from '../auth/helpers.ts';
import { openTestCentral } from '../helpers/db.ts';
import { orgApp } from './helpers.ts';

const SECRET = 'sk_provider_secret_91c2';
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
      - name: contacts.get
        description: One contact.
        capability: contacts.read
        function: op
        output: { type: object, required: [name], properties: { name: { type: string } } }
        fake: { name: Ada }
`).manifest!;
const shop = parseManifest(`${head}integrations:
  crm: { provider: custom, integration: crm, account: app, capabilities: [contacts.read] }
`).manifest!;

let central: Database;
let org: OrgIntegrations;
let provider: (call: ProviderCall) => Promise<JsonValue>;
let connectionId: string;
const printed: string[] = [];

beforeAll(async () => {
  central = await openTestCentral();
  const ada = await new Accounts(central, central, new TestClock()).create(
    'ada@example.com',
    'confirmed',
  );
  await centralAuthority(central).register(['crm', 'shop']);
  org = await openOrgIntegrations({
    central,
    dir: undefined,
    apps: () => [orgApp('crm', crm, (_, call) => provider(call)), orgApp('shop', shop)],
    baseUrl: () => 'http://127.0.0.1:1',
    print: (line) => printed.push(line),
  });
  org.modes.setMode('shop', 'crm', 'live');
  const connection = await org.connections.create({
    integration: 'crm',
    providerAppId: 'crm',
    kind: 'organisation',
    createdBy: ada.id,
    values: { CRM_API_KEY: SECRET },
  });
  connectionId = connection.id;
  await org.bindings.bind({
    consumerAppId: 'shop',
    slot: 'crm',
    account: 'app',
    personAccountId: null,
    connectionId,
    capabilities: ['contacts.read'],
    createdBy: ada.id,
  });
}, 60_000);
afterAll(() => central?.close());
beforeEach(async () => {
  await org.connections.replaceValues(connectionId, { CRM_API_KEY: SECRET });
});

const call = () =>
  org.calls.call({
    consumerAppId: 'shop',
    manifest: shop,
    caller: anonymousCaller,
    slot: 'crm',
    operation: 'contacts.get',
    input: {},
    requestId: 'req_1',
  });

const failure = async () => {
  try {
    await call();
  } catch (error) {
    if (isPlatformError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
};

describe('a live call reports the provider’s failure', () => {
  it('hands the credentials to the provider for the call, and its output back', async () => {
    provider = async (c) => ({ name: `key ${c.credentials.CRM_API_KEY === SECRET}` });
    expect(await call()).toEqual({ name: 'key true' });
  });

  it('passes a typed 4xx through unchanged, without the credential in it', async () => {
    provider = async () => {
      throw errors.notFound('CONTACT_NOT_FOUND', `No contact for key ${SECRET}.`);
    };
    const error = await failure();
    expect(error).toMatchObject({ code: 'CONTACT_NOT_FOUND', status: 404 });
    expect(error.message).not.toContain(SECRET);
  });

  it('marks the connection Reconnect required on 401', async () => {
    provider = async () => {
      throw errors.unauthorized('KEY_REJECTED', 'No.');
    };
    expect((await failure()).code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    expect((await org.connections.get(connectionId)).condition).toBe('reconnect_required');
    expect((await failure()).code).toBe('INTEGRATION_RECONNECT_REQUIRED');
  });

  it('turns a timeout into INTEGRATION_PROVIDER_UNAVAILABLE (retryable)', async () => {
    provider = async (c) => {
      expect(c.timeoutMs).toBe(limits.integration.operationTimeoutSeconds * 1000);
      throw new PlatformError({ code: 'FUNCTION_TIMEOUT', message: `slow ${SECRET}` });
    };
    const error = await failure();
    expect(error).toMatchObject({ code: 'INTEGRATION_PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('turns a crash into INTEGRATION_PROVIDER_FAILED, logged without the credential', async () => {
    provider = async () => {
      throw new PlatformError({ code: 'FUNCTION_FAILED', message: `boom ${SECRET}` });
    };
    expect((await failure()).code).toBe('INTEGRATION_PROVIDER_FAILED');
    expect(printed.some((line) => line.includes('boom'))).toBe(true);
    expect(printed.join('\n')).not.toContain(SECRET);
  });

  it('refuses an output over 1 MiB or one that breaks the declared output schema', async () => {
    provider = async () => ({ name: 'x'.repeat(limits.integration.operationResponseMaxBytes) });
    expect((await failure()).code).toBe('INTEGRATION_PROVIDER_FAILED');
    provider = async () => ({ nom: 'Ada' });
    const error = await failure();
    expect(error.code).toBe('INTEGRATION_PROVIDER_FAILED');
    expect(error.message).toContain('declared output schema');
  });

  it('records every live call in the audit with its result, never the credential', async () => {
    const calls = await org.audit.list('shop');
    expect(calls.map((c) => c.result)).toEqual(
      expect.arrayContaining(['ok', 'CONTACT_NOT_FOUND', 'INTEGRATION_RECONNECT_REQUIRED']),
    );
    expect(JSON.stringify(calls)).not.toContain(SECRET);
  });
});
