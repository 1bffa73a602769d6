// integration.emit under platform dev (spec 6.1): checked against the provider's contract as it
// is served now, delivering nothing; unavailable outside an integration invocation and during
// OAuth exchange and refresh; data at most 64 KiB.
import { isPlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { parseManifest } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { Bindings } from '../../src/integrations/bindings.ts';
import type { EventDeliveries } from '../../src/integrations/event-deliveries.ts';
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
  // Development delivers nothing: a delivery attempted here would throw.
  deliveries: {} as EventDeliveries,
  apps: () => [orgApp('crm', crm)],
  environment: 'development',
});

const codeOf = (run: () => Promise<unknown>) =>
  run().then(
    () => 'ok',
    (error: unknown) => {
      if (isPlatformError(error)) return error.code;
      throw error;
    },
  );

const at = (trigger: string) => ({ trigger, connectionId: 'con_1' });

describe('integration.emit in development', () => {
  const event = { type: 'contact.updated', id: 'c1', data: { email: 'a@b.c' } };

  it('checks a declared event and delivers nothing', async () => {
    expect(await events.emit('crm', at('webhook'), event)).toBe(0);
    expect(
      await codeOf(() => events.emit('crm', at('sync'), { ...event, type: 'contact.gone' })),
    ).toBe('INTEGRATION_EVENT_INVALID');
  });

  it('is unavailable outside an integration invocation and during OAuth', async () => {
    expect(await codeOf(() => events.emit('crm', undefined, event))).toBe(
      'INTEGRATION_EVENT_INVALID',
    );
    expect(await codeOf(() => events.emit('crm', at('oauth'), event))).toBe(
      'INTEGRATION_EVENT_INVALID',
    );
  });

  it('takes data of at most 64 KiB', async () => {
    const fill = (n: number) => ({ ...event, data: { x: 'a'.repeat(n) } });
    const max = limits.integration.eventDataMaxBytes;
    expect(await codeOf(() => events.emit('crm', at('operation'), fill(max - 8)))).toBe('ok');
    expect(await codeOf(() => events.emit('crm', at('operation'), fill(max - 7)))).toBe(
      'LIMIT_EXCEEDED',
    );
  });
});
