import { describe, expect, it } from 'vitest';
import { type Manifest, type OrganisationApp, parseManifest } from '../../src/manifest/index.ts';
import { BASE, expectOne, run } from './helpers.ts';

const slot = (lines: string) =>
  `${BASE}integrations:\n  crm:\n    provider: custom\n    integration: acme-crm\n${lines}`;

const providerApp = (name: string, active = true): OrganisationApp => {
  const { manifest } = parseManifest(
    `${BASE}provides:\n  integration:\n    name: ${name}\n    title: T\n    capabilities:\n      - name: contacts.read\n        description: R.\n    events:\n      - type: contact.created\n        capability: contacts.read\n        description: D.\n        fake: {}\n`,
  );
  return { name: `app-${name}`, active, manifest: manifest as Manifest };
};

describe('integrations.<slot>', () => {
  it('accepts an app slot with events', async () => {
    const { errors } = await run(
      slot(
        '    account: app\n    capabilities: [contacts.read]\n    events:\n      function: worker\n      types: [contact.created]\n',
      ),
    );
    expect(errors).toEqual([]);
  });

  it('rejects an invalid slot name', async () => {
    await expectOne(
      `${BASE}integrations:\n  👉Bad Slot:\n    provider: custom\n    integration: x\n    account: app\n    capabilities: [a]\n`,
      'SLOT_NAME_INVALID',
      'integrations.Bad Slot',
    );
  });

  it('rejects a provider other than custom', async () => {
    await expectOne(
      `${BASE}integrations:\n  crm:\n    provider: 👉salesforce\n    integration: x\n    account: app\n    capabilities: [a]\n`,
      'SLOT_PROVIDER_UNSUPPORTED',
      'integrations.crm.provider',
    );
  });

  it('rejects an account other than app or calling_user', async () => {
    await expectOne(
      slot('    account: 👉user\n    capabilities: [a]\n'),
      'SLOT_ACCOUNT_INVALID',
      'integrations.crm.account',
    );
  });

  it('rejects a cardinality other than one', async () => {
    await expectOne(
      slot('    account: app\n    cardinality: 👉many\n    capabilities: [a]\n'),
      'SLOT_CARDINALITY_UNSUPPORTED',
      'integrations.crm.cardinality',
    );
  });

  it('rejects an invalid integration name', async () => {
    await expectOne(
      `${BASE}integrations:\n  crm:\n    provider: custom\n    integration: 👉Acme_CRM\n    account: app\n    capabilities: [a]\n`,
      'INTEGRATION_NAME_INVALID',
      'integrations.crm.integration',
    );
  });

  it('rejects a repeated capability', async () => {
    await expectOne(
      slot('    account: app\n    capabilities: [a, 👉a]\n'),
      'SLOT_CAPABILITY_DUPLICATE',
      'integrations.crm.capabilities[1]',
    );
  });

  it('rejects events on a calling_user slot', async () => {
    await expectOne(
      slot(
        '    account: calling_user\n    capabilities: [a]\n    👉events:\n      function: worker\n',
      ),
      'SLOT_EVENTS_REQUIRE_APP_ACCOUNT',
      'integrations.crm.events',
    );
  });

  it('rejects a non-system event handler', async () => {
    await expectOne(
      slot('    account: app\n    capabilities: [a]\n    events:\n      function: 👉api\n'),
      'SLOT_EVENTS_FUNCTION_NOT_SYSTEM',
      'integrations.crm.events.function',
    );
  });

  it('rejects an invalid event type in a subscription', async () => {
    await expectOne(
      slot(
        '    account: app\n    capabilities: [a]\n    events:\n      function: worker\n      types: [👉Created]\n',
      ),
      'INTEGRATION_EVENT_TYPE_INVALID',
      'integrations.crm.events.types[0]',
    );
  });
});

describe('organisation checks', () => {
  const contract = (name: string) =>
    `${BASE}provides:\n  integration:\n    name: 👉${name}\n    title: T\n    capabilities:\n      - name: a\n        description: A.\n`;

  it('rejects an integration name another active app publishes', async () => {
    const d = await expectOne(
      contract('acme-crm'),
      'INTEGRATION_NAME_TAKEN',
      'provides.integration.name',
      {
        organisation: [providerApp('acme-crm')],
      },
    );
    expect(d.message).toContain('app-acme-crm');
  });

  it('ignores inactive apps', async () => {
    const { errors } = await run(contract('acme-crm').replace('👉', ''), {
      organisation: [providerApp('acme-crm', false)],
    });
    expect(errors).toEqual([]);
  });

  it('warns when no active app publishes the slot integration', async () => {
    const d = await expectOne(
      slot('    account: app\n    capabilities: [contacts.read]\n').replace(
        'integration: acme-crm',
        'integration: 👉acme-crm',
      ),
      'INTEGRATION_NOT_PUBLISHED',
      'integrations.crm.integration',
      { organisation: [providerApp('acme-crm', false), providerApp('other')] },
    );
    expect(d.severity).toBe('warning');
  });

  it('warns when a requested capability or event type is not offered', async () => {
    const text = slot(
      '    account: app\n    capabilities: [contacts.read, 👉contacts.write]\n    events:\n      function: worker\n      types: [contact.created]\n',
    );
    await expectOne(
      text,
      'INTEGRATION_CAPABILITY_NOT_OFFERED',
      'integrations.crm.capabilities[1]',
      {
        organisation: [providerApp('acme-crm')],
      },
    );
    const events = slot(
      '    account: app\n    capabilities: [contacts.read]\n    events:\n      function: worker\n      types: [👉contact.deleted]\n',
    );
    const d = await expectOne(
      events,
      'INTEGRATION_EVENT_NOT_OFFERED',
      'integrations.crm.events.types[0]',
      {
        organisation: [providerApp('acme-crm')],
      },
    );
    expect(d.severity).toBe('warning');
  });

  it('skips organisation checks without the organisation', async () => {
    const { warnings } = await run(slot('    account: app\n    capabilities: [x]\n'));
    expect(warnings).toEqual([]);
  });
});
