import { readFile } from 'node:fs/promises';
import { parseManifest } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';
// The sales example's real events Function, as the broker runs it in its integration test.
import onCrmEvent from '../../../examples/sales-crm/sales/functions/on-crm-event/index.ts';
import { integrationEvent, runFunction } from '../src/testing/index.ts';

const example = new URL('../../../examples/sales-crm/', import.meta.url);
const manifestOf = async (app: string) => {
  const parsed = parseManifest(await readFile(new URL(`${app}/platform.yaml`, example), 'utf8'));
  if (!parsed.manifest) throw new Error(JSON.stringify(parsed.errors));
  return parsed.manifest;
};

describe('integrationEvent', () => {
  it('hands an events Function the payload the broker delivers, provider the slot’s', async () => {
    const [sales, crm] = await Promise.all([manifestOf('sales'), manifestOf('crm')]);
    const options = integrationEvent(sales, 'crm', { type: 'contact.updated', id: 'evt-1' }, [crm]);
    expect(options.input).toEqual({
      id: 'evt-1',
      type: 'contact.updated',
      occurredAt: '1970-01-01T00:00:00.000Z',
      integration: 'crm',
      provider: 'custom',
      bindingId: null,
      data: crm.provides?.integration?.events?.find((e) => e.type === 'contact.updated')?.fake,
    });
    const first = await runFunction(onCrmEvent, { ...options, data: { crm_events: [] } });
    expect(first.result).toEqual({ stored: 'evt-1' });
    // Delivered twice, as production may: the handler stores the id once.
    const again = await runFunction(onCrmEvent, {
      ...options,
      data: { crm_events: first.ctx.tables.crm_events ?? [] },
    });
    expect(again.result).toEqual({ duplicate: true });
  });

  it('refuses an event the slot does not subscribe to, with the broker’s code', async () => {
    const [sales, crm] = await Promise.all([manifestOf('sales'), manifestOf('crm')]);
    expect(() => integrationEvent(sales, 'crm', { type: 'contact.deleted' }, [crm])).toThrow(
      expect.objectContaining({ code: 'INTEGRATION_EVENT_INVALID' }),
    );
    expect(() => integrationEvent(sales, 'crm', { type: 'contact.updated' })).toThrow(
      expect.objectContaining({ code: 'INTEGRATION_NOT_FOUND' }),
    );
  });
});
