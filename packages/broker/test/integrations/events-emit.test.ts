// integration.emit under platform dev (spec 6.1): checked against the provider's contract as it
// is served now, delivering nothing; unavailable outside an integration invocation and during
// OAuth exchange and refresh; data at most 64 KiB.
import { isPlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { parseManifest } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { Bindings } from '../../src/integrations/bindings.ts';
import { IntegrationEvents } from '../../src/integrations/integration-events.ts';
import { orgApp } from './helpers.ts';

const crm = parseManifest(`schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
provides:
  integration:
    name: crm
    title: CRM
    capabilities:
      - { name: contacts.read, description: Read. }
    events:
      - { type: contact.updated, capability: contacts.read, description: Changed., fake: {} }
`).manifest!;

const events = new IntegrationEvents({
  central: {} as Database,
  bindings: {} as Bindings,
  apps: () => [orgApp('crm', crm)],
});

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (isPlatformError(error)) return error.code;
    throw error;
  }
  return 'ok';
};

describe('integration.emit in development', () => {
  const event = { type: 'contact.updated', id: 'c1', data: { email: 'a@b.c' } };

  it('checks a declared event and delivers nothing', () => {
    expect(events.emit('crm', { trigger: 'webhook' }, event)).toBe(0);
    expect(
      codeOf(() => events.emit('crm', { trigger: 'sync' }, { ...event, type: 'contact.gone' })),
    ).toBe('INTEGRATION_EVENT_INVALID');
  });

  it('is unavailable outside an integration invocation and during OAuth', () => {
    expect(codeOf(() => events.emit('crm', undefined, event))).toBe('INTEGRATION_EVENT_INVALID');
    expect(codeOf(() => events.emit('crm', { trigger: 'oauth' }, event))).toBe(
      'INTEGRATION_EVENT_INVALID',
    );
  });

  it('takes data of at most 64 KiB', () => {
    const fill = (n: number) => ({ ...event, data: { x: 'a'.repeat(n) } });
    const max = limits.integration.eventDataMaxBytes;
    expect(codeOf(() => events.emit('crm', { trigger: 'operation' }, fill(max - 8)))).toBe('ok');
    expect(codeOf(() => events.emit('crm', { trigger: 'operation' }, fill(max - 7)))).toBe(
      'LIMIT_EXCEEDED',
    );
  });
});
