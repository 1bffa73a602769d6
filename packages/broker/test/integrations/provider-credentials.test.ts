// A provider Function's connection credentials and access token stay inside it: what it prints
// while a call runs (and shortly after) is redacted like the app's secrets, its errors are
// redacted, and a result of an operation or a webhook that holds one is refused.
import { isPlatformError, type JsonValue } from '@platform/errors';
import { limits } from '@platform/schema';
import { parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeIntegration } from '../../src/integrations/provider-invocation.ts';
import { brokerFor } from '../helpers/broker.ts';

const KEY = 'crm_key_4b8e1d7f';
const TOKEN = 'oauth_access_9c3a55e2';
const SECRET = 'app_secret_71d0c3';
const REGION = 'europe-west';

const contract = parseManifest(`schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
functions:
  - { name: op, entrypoint: functions/op.ts, access: system }
provides:
  integration:
    name: crm
    title: CRM
    authorization:
      type: oauth2
      authorizationUrl: https://crm.example/authorize
      clientId: abc
      exchange: op
    credentials:
      - { name: CRM_API_KEY, label: Key }
      - { name: CRM_REGION, label: Region, secret: false }
    capabilities:
      - { name: contacts.read, description: Read. }
    operations:
      - { name: contacts.get, description: One., capability: contacts.read, function: op, fake: {} }
`).manifest!.provides!.integration!;

const files = {
  '.platform/secrets.json': JSON.stringify({ APP_SECRET: SECRET }),
  'functions/op.ts': `
import { defineFunction, errors, s } from '@platform/server';
export default defineFunction({
  input: s.object({ what: s.string() }),
  handler: async (ctx) => {
    const key = await ctx.secrets.get('CRM_API_KEY');
    const token = await ctx.secrets.get('OAUTH_ACCESS_TOKEN');
    const secret = await ctx.secrets.get('APP_SECRET');
    const what = ctx.input.what;
    if (what === 'print') {
      console.log('key ' + key + ' token ' + token + ' secret ' + secret);
      console.error('stderr key ' + key + ' token ' + token);
    }
    if (what === 'late') setTimeout(() => console.log('late key ' + key + ' token ' + token), 300);
    if (what === 'throw') throw errors.notFound('CONTACT_NOT_FOUND', 'no contact for ' + key, { token });
    if (what === 'return') return { contacts: [{ note: 'saved with ' + key }] };
    if (what === 'return-token') return { deep: [[{ [token]: 1 }]] };
    if (what === 'return-region') return { region: await ctx.secrets.get('CRM_REGION') };
    return { done: what };
  },
});
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(files, {
    declared: {
      secrets: ['APP_SECRET', 'CRM_API_KEY', 'CRM_REGION', 'OAUTH_ACCESS_TOKEN'],
      searches: {},
      emailAliases: [],
    },
  });
  await env.broker.addFunction({ name: 'op', entrypoint: 'functions/op.ts', access: 'system' });
}, 60_000);
afterAll(() => env.cleanup());

const invoke = (
  what: string,
  trigger: 'operation' | 'webhook' | 'sync' = 'operation',
  credentials: Record<string, string> = {
    CRM_API_KEY: KEY,
    CRM_REGION: REGION,
    OAUTH_ACCESS_TOKEN: TOKEN,
  },
) =>
  invokeIntegration(
    env.broker.invoker,
    'op',
    {
      requestId: `req_${what}_${trigger}`,
      input: { what },
      connectionId: 'conn_test',
      trigger,
      operation: trigger === 'operation' ? 'contacts.get' : undefined,
      consumerAppId: trigger === 'operation' ? 'shop' : undefined,
      credentials,
      timeoutMs: limits.integration.operationTimeoutSeconds * 1000,
    },
    contract,
  );

const failure = async (promise: Promise<JsonValue>) => {
  try {
    await promise;
  } catch (error) {
    if (isPlatformError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
};

const printed = (marker: string) => env.lines.filter((line) => line.includes(marker));

describe("a provider Function's credentials", () => {
  it('are redacted from what it prints to stdout and stderr during the call', async () => {
    expect(await invoke('print')).toEqual({ done: 'print' });
    const lines = [...printed('[op] key '), ...printed('[op] stderr key ')];
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(printed('[op] key ')[0]).toMatch(
      /key \[REDACTED\] token \[REDACTED\] secret \[REDACTED\]$/,
    );
  });

  it(`stay redacted for ${limits.integration.credentialRedactionGraceSeconds} s after the call ended`, async () => {
    expect(await invoke('late')).toEqual({ done: 'late' });
    await expect.poll(() => printed('[op] late key ').length, { timeout: 5000 }).toBe(1);
    expect(printed('[op] late key ')[0]).toMatch(/late key \[REDACTED\] token \[REDACTED\]$/);
  });

  it("are redacted from the Function's error, its details included", async () => {
    const error = await failure(invoke('throw'));
    expect(error).toMatchObject({
      code: 'CONTACT_NOT_FOUND',
      message: 'no contact for [REDACTED]',
      details: { token: '[REDACTED]' },
    });
  });

  it("refuse an operation's or a webhook's result that holds one, naming it, not its value", async () => {
    for (const trigger of ['operation', 'webhook'] as const) {
      const error = await failure(invoke('return', trigger));
      expect(error).toMatchObject({
        code: 'INTEGRATION_PROVIDER_FAILED',
        details: { function: 'op', credential: 'CRM_API_KEY' },
      });
      expect(error.message).toContain('CRM_API_KEY');
      expect(JSON.stringify(error)).not.toContain(KEY);
    }
    const deep = await failure(invoke('return-token'));
    expect(deep.details).toEqual({ function: 'op', credential: 'OAUTH_ACCESS_TOKEN' });
  });

  it('leave a result without them as it is, and a sync result unchecked', async () => {
    expect(await invoke('plain')).toEqual({ done: 'plain' });
    // A credential declared `secret: false` (a region) may be part of what the provider answers.
    expect(await invoke('return-region')).toEqual({ region: REGION });
    // An optional credential left empty is not stored, so it reads as undefined, not null.
    const empty = await invoke('return-region', 'operation', { CRM_API_KEY: KEY });
    expect(empty).toEqual({});
    expect(empty).not.toHaveProperty('region');
    // Nobody receives a sync's result, so a value in it is no leak.
    expect(await invoke('return', 'sync')).toEqual({ contacts: [{ note: `saved with ${KEY}` }] });
  });
});
