import { type JsonObject, type JsonValue, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
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
  /** Whether its owner may replay it: it failed, and its payload is kept until its record goes. */
  readonly replayable: boolean;
}

/** The payload an event handler receives (spec 2.11). */
export type EventPayload = IntegrationEventPayload;

/**
 * The events of the organisation's integrations (spec 6.1; docs/integrations.md). Under
 * `platform dev` an `emit` is checked against the provider's contract as it is served now and
 * delivers nothing (production events never reach a development session); a developer injects a
 * synthetic event into a consumer slot instead, which is delivered to the slot's events
 * Function at once and recorded. A delivery record keeps its payload only while it has not
 * been delivered: a failed one can be replayed by its owner until its record expires.
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

  /**
   * Replays the failed delivery `id` to `appId`'s slot (the owner's action): an emitted one is
   * made pending again and attempted by {@link EventDeliveries} as any other; an injected one is
   * delivered to the slot's events Function again now, with the same payload. A delivered or
   * still pending delivery is refused, and so is one of another environment, which only that
   * environment attempts (spec 6.1.6).
   */
  async replay(appId: string, id: string, requestId: string): Promise<EventDelivery> {
    const found = await this.#find(appId, id);
    if (found.environment !== this.#environment) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: `The delivery ${id} was recorded in ${found.environment}; only a broker running in ${found.environment} replays it.`,
        details: { id, environment: found.environment },
      });
    }
    if (found.state !== 'failed' || !found.replayable) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message:
          found.state === 'delivered'
            ? `The delivery ${id} was delivered; only a failed delivery is replayed, and a delivered one keeps no payload.`
            : found.state === 'pending'
              ? `The delivery ${id} is still pending; it is attempted again on its own.`
              : `The delivery ${id} failed before payloads were kept, so there is nothing to replay.`,
        details: { id, state: found.state },
      });
    }
    if (found.source === 'emitted') {
      if (!(await this.#deliveries.replay(id))) {
        throw new PlatformError({
          code: 'INVALID_REQUEST',
          message: `The delivery ${id} changed while it was replayed; look at it again.`,
          details: { id },
        });
      }
      return toDelivery((await this.#find(appId, id)) as Row);
    }
    const declared = this.#apps().find((app) => app.appId === appId)?.manifest.integrations[
      found.slot
    ];
    const consumer = this.#apps().find((app) => app.appId === appId);
    let lastError: string | null = null;
    if (!consumer || !declared?.events) {
      lastError = `The slot ${found.slot} no longer subscribes to events.`;
    } else {
      try {
        await consumer.runSystem(declared.events.function, found.payload as JsonValue, requestId);
      } catch (error) {
        lastError =
          error instanceof PlatformError ? `${error.code}: ${error.message}` : String(error);
      }
    }
    const now = this.#clock.now();
    const { rows } = await this.#db.query<Row>(
      `UPDATE platform.integration_event_deliveries
          SET state = $3, attempts = attempts + 1, last_error = $4, delivered_at = $5,
              payload = CASE WHEN $3 = 'delivered' THEN NULL ELSE payload END
        WHERE id = $1 AND consumer_app_id = $2 RETURNING ${COLUMNS}`,
      [
        id,
        appId,
        lastError === null ? 'delivered' : 'failed',
        lastError?.slice(0, limits.jobs.errorMaxLength) ?? null,
        lastError === null ? now : null,
      ],
    );
    return toDelivery(rows[0] as Row);
  }

  async #find(
    appId: string,
    id: string,
  ): Promise<Row & { source: 'injected' | 'emitted'; payload: JsonValue | null }> {
    const { rows } = await this.#db.query<
      Row & { source: 'injected' | 'emitted'; payload: JsonValue | null }
    >(
      `SELECT ${COLUMNS}, source, payload FROM platform.integration_event_deliveries
        WHERE id = $1 AND consumer_app_id = $2`,
      [id, appId],
    );
    const row = rows[0];
    if (!row) {
      throw new PlatformError({
        code: 'INTEGRATION_EVENT_DELIVERY_NOT_FOUND',
        message: `${appId} has no event delivery ${id}; records are kept 14 days.`,
        details: { id },
      });
    }
    return row;
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
         (id, consumer_app_id, slot, binding_id, event_id, type, state, attempts, last_error, created_at, delivered_at, environment, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
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
        // Kept for a replay while the delivery has failed, never once delivered.
        lastError === null ? null : JSON.stringify(payload),
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
  replayable: boolean;
}

// `replayable` says whether a payload is kept without reading it: listings never carry one.
const COLUMNS =
  "id, consumer_app_id, slot, binding_id, event_id, type, environment, state, attempts, last_error, created_at, delivered_at, (state = 'failed' AND payload IS NOT NULL) AS replayable";

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
    replayable: row.replayable,
  };
}
