import type { JsonObject } from '@platform/errors';
import { type IntegrationEventPayload, integrationEventPayload } from '@platform/schema/contract';
import type { Manifest } from '@platform/schema/manifest';
import type { TestContextOptions } from './test-context.ts';

/** An event for {@link integrationEvent}: its type; the rest has defaults. */
export interface TestIntegrationEvent {
  readonly type: string;
  /** @default 'evt_test' */
  readonly id?: string;
  /** @default the declared `fake` of the event type */
  readonly data?: JsonObject;
  /** @default null, as for an event injected into an unbound slot in development */
  readonly bindingId?: string | null;
  /** @default '1970-01-01T00:00:00.000Z' */
  readonly occurredAt?: string;
}

/**
 * Test context options that hand a consumer's events Function one integration event for its
 * slot `slot`: the input is built by `integrationEventPayload`, the builder the broker uses, so
 * it has exactly the shape `platform dev` delivers (spec 2.11, docs/integrations.md; `provider`
 * is the slot's `provider`, `custom`) and is refused with the broker's code when the slot does
 * not subscribe to the event. `providers` are the manifests that may publish the slot's
 * integration; `options` adds tables and the rest.
 *
 * @example
 * ```ts
 * const { result } = await runFunction(
 *   onCrmEvent,
 *   integrationEvent(sales, 'crm', { type: 'contact.updated', id: 'evt-1' }, [crm], { data: { crm_events: [] } }),
 * );
 * ```
 */
export function integrationEvent(
  consumer: Pick<Manifest, 'integrations'>,
  slot: string,
  event: TestIntegrationEvent,
  providers: readonly Pick<Manifest, 'provides'>[] = [],
  options: Omit<TestContextOptions, 'input'> = {},
): TestContextOptions & { readonly input: IntegrationEventPayload } {
  const declared = consumer.integrations[slot];
  const contract = providers
    .flatMap((p) => (p.provides?.integration ? [p.provides.integration] : []))
    .find((one) => one.name === declared?.integration);
  const input = integrationEventPayload({
    slotName: slot,
    slot: declared,
    contract,
    type: event.type,
    id: event.id ?? 'evt_test',
    data: event.data,
    occurredAt: event.occurredAt ?? new Date(0).toISOString(),
    bindingId: event.bindingId ?? null,
  });
  return { ...options, input };
}
