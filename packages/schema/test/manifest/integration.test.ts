import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/manifest/index.ts';
import { BASE, expectOne, run } from './helpers.ts';

const CAPS =
  '    capabilities:\n      - name: contacts.read\n        description: Read contacts.\n';
const provider = (body: string, caps = CAPS) =>
  `${BASE}provides:\n  integration:\n    name: acme-crm\n    title: Acme CRM\n${caps}${body}`;
const op = (fields: string) =>
  `    operations:\n      - name: contacts.find\n        description: Find.\n${fields}`;
const credentials = (n: number) =>
  `    credentials:\n${Array.from({ length: n }, (_, i) => `      - name: KEY_${i}\n        label: Key ${i}\n`).join('')}`;
const oauth = (fields: string) =>
  `    authorization:\n      type: oauth2\n      authorizationUrl: https://a.example/auth\n      clientId: c\n${fields}`;

describe('provides.integration', () => {
  it('rejects a name that is not kebab-case', async () => {
    await expectOne(
      provider('').replace('name: acme-crm', 'name: 👉AcmeCRM'),
      'INTEGRATION_NAME_INVALID',
      'provides.integration.name',
    );
  });

  it('accepts 20 credentials and rejects 21', async () => {
    expect((await run(provider(credentials(20)))).errors).toEqual([]);
    await expectOne(
      provider(credentials(21).replace('      - name: KEY_0', '      👉- name: KEY_0')),
      'INTEGRATION_TOO_MANY_CREDENTIALS',
      'provides.integration.credentials',
    );
  });

  it('rejects a credential name that breaks secret naming rules', async () => {
    await expectOne(
      provider('    credentials:\n      - name: 👉api-key\n        label: Key\n'),
      'SECRET_NAME_INVALID',
      'provides.integration.credentials[0].name',
    );
  });

  it('rejects a credential named like an app secret', async () => {
    await expectOne(
      `secrets: [API_KEY]\n${provider('    credentials:\n      - name: 👉API_KEY\n        label: Key\n')}`,
      'INTEGRATION_CREDENTIAL_SHADOWS_SECRET',
      'provides.integration.credentials[0].name',
    );
  });

  it('rejects a duplicate credential', async () => {
    await expectOne(
      provider(
        '    credentials:\n      - name: K\n        label: A\n      - name: 👉K\n        label: B\n',
      ),
      'INTEGRATION_CREDENTIAL_DUPLICATE',
      'provides.integration.credentials[1].name',
    );
  });

  it('rejects a duplicate or invalid capability', async () => {
    await expectOne(
      provider('', `${CAPS}      - name: 👉contacts.read\n        description: Again.\n`),
      'INTEGRATION_CAPABILITY_DUPLICATE',
      'provides.integration.capabilities[1].name',
    );
    await expectOne(
      provider('', '    capabilities:\n      - name: 👉Contacts\n        description: Read.\n'),
      'INTEGRATION_CAPABILITY_INVALID',
      'provides.integration.capabilities[0].name',
    );
  });

  it('requires a description on every operation', async () => {
    await expectOne(
      provider(
        '    operations:\n      - 👉name: contacts.find\n        capability: contacts.read\n        function: worker\n        fake: {}\n',
      ),
      'REQUIRED_FIELD_MISSING',
      'provides.integration.operations[0].description',
    );
  });

  it.each(['contacts', 'Contacts.find', 'contacts.find_by', 'contacts..find'])(
    'rejects the operation name %s',
    async (name) => {
      await expectOne(
        provider(
          op(
            '        capability: contacts.read\n        function: worker\n        fake: {}\n',
          ).replace('contacts.find', `👉'${name}'`),
        ),
        'INTEGRATION_OPERATION_NAME_INVALID',
        'provides.integration.operations[0].name',
      );
    },
  );

  it('rejects an undeclared capability, with a suggestion', async () => {
    const d = await expectOne(
      provider(
        op('        capability: 👉contacts.raed\n        function: worker\n        fake: {}\n'),
      ),
      'INTEGRATION_CAPABILITY_UNDECLARED',
      'provides.integration.operations[0].capability',
    );
    expect(d.message).toContain('Did you mean "contacts.read"?');
  });

  it('rejects an operation Function that is not system', async () => {
    await expectOne(
      provider(
        op('        capability: contacts.read\n        function: 👉api\n        fake: {}\n'),
      ),
      'INTEGRATION_FUNCTION_NOT_SYSTEM',
      'provides.integration.operations[0].function',
    );
  });

  it('requires a fake output and limits it to 16 KiB', async () => {
    await expectOne(
      provider(
        op('        capability: contacts.read\n        function: worker\n').replace(
          '- name:',
          '- 👉name:',
        ),
      ),
      'REQUIRED_FIELD_MISSING',
      'provides.integration.operations[0].fake',
    );
    const fits = 'x'.repeat(16 * 1024 - 2);
    expect(
      (
        await run(
          provider(
            op(
              `        capability: contacts.read\n        function: worker\n        fake: "${fits}"\n`,
            ),
          ),
        )
      ).errors,
    ).toEqual([]);
    await expectOne(
      provider(
        op(
          `        capability: contacts.read\n        function: worker\n        fake: 👉"${fits}x"\n`,
        ),
      ),
      'INTEGRATION_FAKE_TOO_LARGE',
      'provides.integration.operations[0].fake',
    );
  });

  it('rejects a duplicate operation', async () => {
    const one = '        capability: contacts.read\n        function: worker\n        fake: null\n';
    await expectOne(
      provider(`${op(one)}      - name: 👉contacts.find\n        description: Again.\n${one}`),
      'INTEGRATION_OPERATION_DUPLICATE',
      'provides.integration.operations[1].name',
    );
  });

  it('checks sync and webhook Functions, schedule and timezone', async () => {
    const sync = (fn: string, schedule: string, tz: string) =>
      provider(
        `    sync:\n      function: ${fn}\n      schedule: ${schedule}\n      timezone: ${tz}\n`,
      );
    await expectOne(
      sync('👉api', "'0 * * * *'", 'UTC'),
      'INTEGRATION_FUNCTION_NOT_SYSTEM',
      'provides.integration.sync.function',
    );
    await expectOne(
      sync('worker', "👉'0 0 0 * * *'", 'UTC'),
      'CRON_SCHEDULE_INVALID',
      'provides.integration.sync.schedule',
    );
    await expectOne(
      sync('worker', "'0 * * * *'", '👉Nowhere/City'),
      'TIMEZONE_INVALID',
      'provides.integration.sync.timezone',
    );
    await expectOne(
      provider('    webhook:\n      function: 👉site\n'),
      'INTEGRATION_FUNCTION_NOT_SYSTEM',
      'provides.integration.webhook.function',
    );
  });

  it('checks event types, capabilities, duplicates and fake size', async () => {
    const event = (type: string, cap = 'contacts.read', fake = '{ id: c_1 }') =>
      `      - type: ${type}\n        capability: ${cap}\n        description: D.\n        fake: ${fake}\n`;
    await expectOne(
      provider(`    events:\n${event('👉ContactCreated')}`),
      'INTEGRATION_EVENT_TYPE_INVALID',
      'provides.integration.events[0].type',
    );
    await expectOne(
      provider(`    events:\n${event('contact.created', '👉contacts.write')}`),
      'INTEGRATION_CAPABILITY_UNDECLARED',
      'provides.integration.events[0].capability',
    );
    await expectOne(
      provider(`    events:\n${event('contact.created')}${event('👉contact.created')}`),
      'INTEGRATION_EVENT_DUPLICATE',
      'provides.integration.events[1].type',
    );
    await expectOne(
      provider(`    events:\n${event('contact.created', 'contacts.read', '👉[1]')}`),
      'INVALID_TYPE',
      'provides.integration.events[0].fake',
    );
    await expectOne(
      provider(
        `    events:\n${event('contact.created', 'contacts.read', `👉{ d: "${'x'.repeat(64 * 1024)}" }`)}`,
      ),
      'INTEGRATION_EVENT_FAKE_TOO_LARGE',
      'provides.integration.events[0].fake',
    );
  });

  it('defaults pkce to true and accessToken to OAUTH_ACCESS_TOKEN', () => {
    const { manifest } = parseManifest(provider(oauth('      exchange: worker\n')));
    expect(manifest?.provides?.integration?.authorization).toMatchObject({
      pkce: true,
      accessToken: 'OAUTH_ACCESS_TOKEN',
      scopes: [],
    });
  });

  it('accepts only the authorization-code oauth2 type', async () => {
    const d = await expectOne(
      provider(
        oauth('      exchange: worker\n').replace('type: oauth2', 'type: 👉client_credentials'),
      ),
      'INTEGRATION_OAUTH_TYPE_UNSUPPORTED',
      'provides.integration.authorization.type',
    );
    expect(d.message).toContain('authorization-code');
  });

  it('requires exchange and refresh to be system Functions', async () => {
    await expectOne(
      provider(oauth('      exchange: 👉api\n')),
      'INTEGRATION_FUNCTION_NOT_SYSTEM',
      'provides.integration.authorization.exchange',
    );
    await expectOne(
      provider(oauth('      exchange: worker\n      refresh: 👉site\n')),
      'INTEGRATION_FUNCTION_NOT_SYSTEM',
      'provides.integration.authorization.refresh',
    );
  });

  it('requires an https authorization URL', async () => {
    await expectOne(
      provider(
        oauth('      exchange: worker\n').replace(
          'https://a.example/auth',
          '👉http://a.example/auth',
        ),
      ),
      'INTEGRATION_OAUTH_URL_INVALID',
      'provides.integration.authorization.authorizationUrl',
    );
  });

  it('rejects an accessToken name that clashes with a credential', async () => {
    await expectOne(
      provider(
        `    credentials:\n      - name: TOKEN\n        label: T\n${oauth('      exchange: worker\n      accessToken: 👉TOKEN\n')}`,
      ),
      'INTEGRATION_ACCESS_TOKEN_NAME_CLASH',
      'provides.integration.authorization.accessToken',
    );
  });
});
