import { type JsonObject, type JsonValue, PlatformError } from '@platform/errors';
import {
  checkEmit,
  type IntegrationEventPayload,
  integrationEventPayload,
} from '@platform/schema/contract';
import type { Database } from '../db/database.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import type { Bindings } from './bindings.ts';
import type { EventDeliveries } from './event-deliveries.ts';
import { findPublisher, type ProviderApp } from './provider-app.ts';

/** One delivery of an integration event to a consumer slot, as the listing shows it. */
export interface EventDelivery {
  readonly id: string;
  readonly consumerAppId: string;
  readonly slot: string;
  /** The slot's binding; `null` for an event injected into an unbound slot in development. */
  readonly bindingId: string | null;
  readonly eventId: string;
  readonly type: string;
  /** The environment that recorded it, the only one that attempts it (spec 6.1.6). */
  readonly environment: 'development' | 'production';
  /** `pending` while an emitted event waits for its next attempt. */
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  /** The last failure's code and message; `null` once delivered. */
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly deliveredAt: string | null;
}

/** The payload an event handler receives (spec 2.11). */
export type EventPayload = IntegrationEventPayload;

/**
 * The events of the organisation's integrations (spec 6.1; docs/integrations.md). Under
 * `platform dev` an `emit` is checked against the provider's contract as it is served now and
 * delivers nothing (production events never reach a development session); a developer injects a
 * synthetic event into a consumer slot instead, which is delivered to the slot's events
 * Function at once and recorded. Delivery records keep no payload.
 */
export class IntegrationEvents {
  readonly #db: Database;
  readonly #bindings: Bindings;
  readonly #apps: () => readonly ProviderApp[];
  readonly #clock: Clock;
  readonly #deliveries: EventDeliveries;
  readonly #environment: 'development' | 'production';

  constructor(options: {
    central: Database;
    bindings: Bindings;
    deliveries: EventDeliveries;
    apps: () => readonly ProviderApp[];
    environment: 'development' | 'production';
    clock?: Clock | undefined;
  }) {
    this.#deliveries = options.deliveries;
    this.#environment = options.environment;
    this.#db = options.central;
    this.#bindings = options.bindings;
    this.#apps = options.apps;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * `integration.emit` of a provider Function running for a connection (`trigger` `operation`,
   * `sync` or `webhook`; never during OAuth exchange or refresh): checks the event against the
   * contract `providerAppId` serves and answers the number of new deliveries: 0 in development,
   * where nothing is delivered; in production one per subscribed binding that did not have
   * this event id yet, delivered by {@link EventDeliveries}.
   */
  async emit(
    providerAppId: string,
    invocation: { readonly trigger: string; readonly connectionId: string } | undefined,
    event: { readonly type: string; readonly id: string; readonly data: JsonObject },
  ): Promise<number> {
    const provider = this.#apps().find((app) => app.appId === providerAppId);
    const contract = provider?.manifest.provides?.integration;
    checkEmit(contract, invocation, event);
    if (this.#environment === 'development' || !provider || !contract || !invocation) return 0;
    return this.#deliveries.enqueue(contract, invocation.connectionId, event);
  }

  /**
   * Delivers a synthetic event of `type` to `slot` of the consumer app `appId` now, with a new
   * id: `data` defaults to the event's declared `fake`. Answers its delivery record.
   */
  async inject(
    appId: string,
    slot: string,
    event: { readonly type: string; readonly data?: JsonObject | undefined },
    requestId: string,
  ): Promise<EventDelivery> {
    if (this.#environment !== 'development') {
      throw new PlatformError({
        code: 'FEATURE_NOT_AVAILABLE',
        message:
          'Synthetic events are injected into development sessions only; in production the provider emits them.',
      });
    }
    const consumer = this.#apps().find((app) => app.appId === appId);
    const declared = consumer?.manifest.integrations[slot];
    if (!consumer || !declared) {
      // An agent may name the integration where the slot is meant: say which slots use it.
      const using = Object.entries(consumer?.manifest.integrations ?? {})
        .filter(([, one]) => one.integration === slot)
        .map(([name]) => name);
      throw new PlatformError({
        code: 'INTEGRATION_SLOT_NOT_DECLARED',
        message:
          using.length === 0
            ? `${appId} declares no integration slot "${slot}".`
            : `${appId} declares no integration slot "${slot}"; the slots using the integration "${slot}" are ${using.join(', ')}.`,
        details: { slot },
      });
    }
    const binding = await this.#bindings.find(appId, slot);
    const payload = integrationEventPayload({
      slotName: slot,
      slot: declared,
      contract: findPublisher(this.#apps(), declared.integration)?.contract,
      type: event.type,
      id: newId('integrationEvent'),
      data: event.data,
      occurredAt: this.#clock.now().toISOString(),
      bindingId: binding?.id ?? null,
    });
    const handler = declared.events?.function ?? '';
    let lastError: string | null = null;
    try {
      await consumer.runSystem(handler, payload as unknown as JsonValue, requestId);
    } catch (error) {
      lastError =
        error instanceof PlatformError ? `${error.code}: ${error.message}` : String(error);
    }
    return this.#record(appId, slot, payload, lastError);
  }

  /** The newest deliveries to `appId`'s slots, newest first. */
  async list(appId: string, limit = 100): Promise<EventDelivery[]> {
    const { rows } = await this.#db.query<Row>(
      `SELECT ${COLUMNS} FROM platform.integration_event_deliveries
        WHERE consumer_app_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [appId, limit],
    );
    return rows.map(toDelivery);
  }

  async #record(
    appId: string,
    slot: string,
    payload: EventPayload,
    lastError: string | null,
  ): Promise<EventDelivery> {
    const now = this.#clock.now();
    const { rows } = await this.#db.query<Row>(
      `INSERT INTO platform.integration_event_deliveries
         (id, consumer_app_id, slot, binding_id, event_id, type, state, attempts, last_error, created_at, delivered_at, environment)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [
        newId('eventDelivery'),
        appId,
        slot,
        payload.bindingId,
        payload.id,
        payload.type,
        lastError === null ? 'delivered' : 'failed',
        lastError,
        now,
        lastError === null ? now : null,
        this.#environment,
      ],
    );
    return toDelivery(rows[0] as Row);
  }
}

interface Row {
  id: string;
  consumer_app_id: string;
  slot: string;
  binding_id: string | null;
  event_id: string;
  type: string;
  environment: 'development' | 'production';
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: Date | string;
  delivered_at: Date | string | null;
}

const COLUMNS =
  'id, consumer_app_id, slot, binding_id, event_id, type, environment, state, attempts, last_error, created_at, delivered_at';

function toDelivery(row: Row): EventDelivery {
  return {
    id: row.id,
    consumerAppId: row.consumer_app_id,
    slot: row.slot,
    bindingId: row.binding_id,
    eventId: row.event_id,
    type: row.type,
    environment: row.environment,
    state: row.state,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: new Date(row.created_at).toISOString(),
    deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at).toISOString(),
  };
}
