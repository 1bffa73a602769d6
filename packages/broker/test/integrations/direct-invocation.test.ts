// Direct invocations (`platform invoke`) of a provider's integration Functions: OAuth exchange
// and refresh are never invocable; operation, sync and webhook Functions need the session's test
// connection; any other Function is a plain call.
import { isPlatformError } from '@platform/errors';
import { parseManifest } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';
import type { Connections } from '../../src/integrations/connections.ts';
import { DevIntegrationModes } from '../../src/integrations/dev-integration-modes.ts';
import { directIntegration } from '../../src/integrations/direct-invocation.ts';

const parsed = parseManifest(`schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
functions:
  - { name: exchange, entrypoint: f.ts, access: system }
  - { name: refresh, entrypoint: f.ts, access: system }
  - { name: listContacts, entrypoint: f.ts, access: system }
  - { name: pull, entrypoint: f.ts, access: system }
  - { name: other, entrypoint: f.ts, access: system }
provides:
  integration:
    name: crm
    title: CRM
    authorization:
      type: oauth2
      authorizationUrl: https://crm.example/authorize
      clientId: abc
      exchange: exchange
      refresh: refresh
    capabilities:
      - { name: contacts.read, description: Read. }
    operations:
      - { name: contacts.list, description: List., capability: contacts.read, function: listContacts, fake: [] }
    sync: { function: pull, schedule: '*/15 * * * *' }
`);
const manifest = parsed.manifest!;

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (isPlatformError(error) ? error.code : String(error)),
  );

describe('a direct invocation of a provider Function', () => {
  const app = {
    appId: 'crm',
    manifest,
    modes: new DevIntegrationModes(),
    connections: {} as Connections,
    credentials: () => Promise.reject(new Error('no connection is opened in these tests')),
  };

  it('refuses the OAuth exchange and refresh Functions', async () => {
    expect(await codeOf(directIntegration('exchange', app))).toBe(
      'INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE',
    );
    expect(await codeOf(directIntegration('refresh', app))).toBe(
      'INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE',
    );
  });

  it('needs a test connection for operation and sync Functions, and none for others', async () => {
    expect(await codeOf(directIntegration('listContacts', app))).toBe(
      'INTEGRATION_TEST_CONNECTION_REQUIRED',
    );
    expect(await codeOf(directIntegration('pull', app))).toBe(
      'INTEGRATION_TEST_CONNECTION_REQUIRED',
    );
    expect(await directIntegration('other', app)).toBeUndefined();
  });
});
