import { type JsonObject, type JsonValue, PlatformError, refusesRetry } from '@platform/errors';
import { limits } from '@platform/schema';
import { subscribesToEvent } from '@platform/schema/contract';
import type { IntegrationContract, SlotDeclaration } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import { whileRenewing } from '../kernel/lease-renewal.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import type { Binding, Bindings } from './bindings.ts';
import type { Connections } from './connections.ts';
import type { IntegrationRules } from './integration-rules.ts';
import { findPublisher, type ProviderApp } from './provider-app.ts';

/** How long an emitted event is retried before its delivery counts as failed (spec 6.1). */
export const DELIVERY_WINDOW_MS = 3 * 60 * 60 * 1000;

/** The wait before attempt `n + 1` after `n` failed attempts: 10 s doubling, at most 30 min. */
export function retryDelayMs(attempts: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 30 * 60_000);
}

// A delivery being attempted is held this long and the hold renewed every third of it while the
// attempt runs, so a broker that dies half-way lets another take the delivery over soon, however
// long the event Function may take.
const ATTEMPT_LEASE_MS = 30_000;
const BATCH = 16;
const PRUNE_EVERY_MS = 60_000;

interface DueRow {
  id: string;
  consumer_app_id: string;
  slot: string;
  binding_id: string;
  type: string;
  attempts: number;
  payload: JsonObject;
  created_at: Date | string;
}

/**
 * The delivery of emitted integration events outside development (spec 6.1; docs/integrations.md):
 * each event is recorded once per subscribed binding with its payload, and delivered to the
 * slot's events Function as the consumer's system identity, at least once and in no particular
 * order. A failed attempt is retried with a growing delay (10 s doubling, at most 30 min) until
 * about three hours after the event, when the delivery counts as failed. Everything lives in the
 * central store, so deliveries survive a broker restart and brokers sharing one PostgreSQL each
 * take a delivery once (a lease per attempt). A payload is dropped once delivered; a failed
 * delivery keeps it, so its owner can replay it, until its record goes: records are kept 14 days.
 *
 * A delivery belongs to the environment whose broker recorded it: a broker delivers only its own
 * environment's, so an event left pending by a production run waits for production and never
 * reaches a development session of the same folders (spec 6.1.6). Each attempt checks again
 * that the slot still subscribes, that its binding still grants the event's capability and that
 * the binding passes the live checks of spec 5.4 (spec 6.1.3); a handler error whose platform
 * code the catalog marks not retryable ends the delivery at once.
 */
export class EventDeliveries {
  readonly #db: Database;
  readonly #bindings: Bindings;
  readonly #connections: Connections;
  readonly #rules: IntegrationRules;
  readonly #apps: () => readonly ProviderApp[];
  readonly #print: LogWriter;
  readonly #activity: LogWriter | undefined;
  readonly #clock: Clock;
  readonly #environment: 'development' | 'production';
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #again = false;
  #prunedAt = 0;

  constructor(options: {
    central: Database;
    bindings: Bindings;
    connections: Connections;
    rules: IntegrationRules;
    apps: () => readonly ProviderApp[];
    print: LogWriter;
    /** Told one line for each attempt of a delivery (`platform dev` prints it). */
    activity?: LogWriter | undefined;
    /** The environment whose deliveries this broker records and attempts. */
    environment: 'development' | 'production';
    clock?: Clock | undefined;
  }) {
    this.#environment = options.environment;
    this.#db = options.central;
    this.#bindings = options.bindings;
    this.#connections = options.connections;
    this.#rules = options.rules;
    this.#apps = options.apps;
    this.#print = options.print;
    this.#activity = options.activity;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Records `event`, emitted under `contract` for `connectionId`, for every binding of that
   * connection whose slot subscribes to it now (an `account: app` slot with `events.function`,
   * `events.types` naming the type or absent, the binding granting the event's capability and
   * passing the live checks); an event id a binding has already is skipped. Answers the number
   * of new deliveries.
   */
  async enqueue(
    contract: IntegrationContract,
    connectionId: string,
    event: { readonly type: string; readonly id: string; readonly data: JsonObject },
  ): Promise<number> {
    const capability = contract.events?.find((one) => one.type === event.type)?.capability;
    const connection = await this.#connections.get(connectionId);
    const occurredAt = this.#clock.now();
    let added = 0;
    for (const binding of await this.#bindings.ofConnection(connectionId)) {
      const slot = this.#slotOf(binding);
      if (!slot || !capability || !this.#subscribes(binding, event.type, capability)) continue;
      try {
        if ((await this.#rules.checkLive(binding, connection)) === 'revoke') continue;
      } catch {
        continue; // suspended: no events while it is
      }
      const payload = {
        id: event.id,
        type: event.type,
        occurredAt: occurredAt.toISOString(),
        integration: binding.slot,
        // The slot's declared provider (spec 2.11), as the test kit's payload has it.
        provider: slot.provider,
        bindingId: binding.id,
        data: event.data,
      };
      const { rowCount } = await this.#db.query(
        `INSERT INTO platform.integration_event_deliveries
           (id, consumer_app_id, slot, binding_id, event_id, type, state, attempts, created_at,
            source, payload, next_attempt_at, environment)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, 'emitted', $8, $7, $9)
         ON CONFLICT (binding_id, event_id) WHERE source = 'emitted' DO NOTHING`,
        [
          newId('eventDelivery'),
          binding.consumerAppId,
          binding.slot,
          binding.id,
          event.id,
          event.type,
          occurredAt,
          JSON.stringify(payload),
          this.#environment,
        ],
      );
      added += rowCount;
    }
    if (added > 0) this.kick();
    return added;
  }

  /** Delivers what is due every `tickMs`, and at once after {@link EventDeliveries.kick}. */
  start(tickMs = 1000): void {
    if (this.#timer) return;
    const loop = () => {
      this.#timer = setTimeout(loop, tickMs);
      this.kick();
    };
    this.#timer = setTimeout(loop, 0);
  }

  /** Stops delivering; an attempt in progress finishes. */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Runs a delivery pass now (or right after the one running). */
  kick(): void {
    if (!this.#timer) return;
    this.#again = true;
    this.#running = this.#running.then(async () => {
      while (this.#again && this.#timer) {
        this.#again = false;
        try {
          if ((await this.deliverDue()) === BATCH) this.#again = true;
        } catch (error) {
          this.#print(`integration events: ${error instanceof Error ? error.message : error}`);
        }
      }
    });
  }

  /**
   * Makes the failed emitted delivery `id` pending again, due now (the owner's replay): attempted
   * as any pending one, it keeps being retried while the event is younger than the delivery
   * window and fails again after one more attempt when it is older. Answers whether it was
   * failed with its payload kept; the caller explains a refusal.
   */
  async replay(id: string): Promise<boolean> {
    const now = this.#clock.now();
    const { rowCount } = await this.#db.query(
      `UPDATE platform.integration_event_deliveries
          SET state = 'pending', next_attempt_at = $2, lease_until = NULL
        WHERE id = $1 AND state = 'failed' AND payload IS NOT NULL AND source = 'emitted'
          AND environment = $3`,
      [id, now, this.#environment],
    );
    if (rowCount > 0) this.kick();
    return rowCount > 0;
  }

  /** Attempts the deliveries that are due now, once each; answers how many it attempted. */
  async deliverDue(): Promise<number> {
    const now = this.#clock.now();
    const leaseUntil = new Date(now.getTime() + ATTEMPT_LEASE_MS);
    if (now.getTime() - this.#prunedAt >= PRUNE_EVERY_MS) await this.#prune(now);
    const { rows } = await this.#db.query<DueRow>(
      `UPDATE platform.integration_event_deliveries SET lease_until = $2
        WHERE id IN (SELECT id FROM platform.integration_event_deliveries
                      WHERE state = 'pending' AND next_attempt_at <= $1
                        AND (lease_until IS NULL OR lease_until <= $1) AND environment = $3
                      ORDER BY next_attempt_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
       RETURNING id, consumer_app_id, slot, binding_id, type, attempts, payload, created_at`,
      [now, leaseUntil, this.#environment],
    );
    await Promise.all(rows.map((row) => this.#attempt(row, leaseUntil)));
    return rows.length;
  }

  // Attempts `row`, held until `leaseUntil`, renewing the hold while the attempt runs.
  async #attempt(row: DueRow, leaseUntil: Date): Promise<void> {
    let held = leaseUntil;
    const renew = async () => {
      const next = new Date(this.#clock.now().getTime() + ATTEMPT_LEASE_MS);
      const { rowCount } = await this.#db.query(
        `UPDATE platform.integration_event_deliveries SET lease_until = $3
          WHERE id = $1 AND lease_until = $2 AND state = 'pending'`,
        [row.id, held, next],
      );
      if (rowCount > 0) held = next;
    };
    const outcome = await whileRenewing(ATTEMPT_LEASE_MS, renew, () => this.#outcome(row));
    await this.#record(row, held, outcome.error, outcome.final);
  }

  // Runs the delivery's handler where it may run now; answers the error and whether it is final.
  async #outcome(row: DueRow): Promise<{ error: string | null; final: boolean }> {
    const consumer = this.#apps().find((app) => app.appId === row.consumer_app_id);
    const slot = consumer?.manifest.integrations[row.slot];
    const binding = await this.#bindings.find(row.consumer_app_id, row.slot);
    let error: string | null = null;
    let final = false;
    if (!binding || binding.id !== row.binding_id) {
      error = 'The slot is no longer bound to the connection that emitted the event.';
      final = true;
    } else if (!consumer || !slot || (await consumer.paused())) {
      // Not serving now (starting, restarting, paused for its owner's verification): a later
      // attempt reaches it.
      error = `${row.consumer_app_id} is not running.`;
    } else if (
      slot.account !== 'app' ||
      !slot.events ||
      (slot.events.types !== undefined && !slot.events.types.includes(row.type))
    ) {
      error = `The slot ${row.slot} no longer subscribes to ${row.type}.`;
      final = true;
    } else {
      const refused = await this.#refusal(binding, slot.integration, slot.capabilities, row.type);
      if (refused) {
        ({ error, final } = refused);
      } else {
        try {
          await consumer.runSystem(
            slot.events.function,
            row.payload as JsonValue,
            `evt_${row.id}_${row.attempts + 1}`,
          );
        } catch (failure) {
          error = describe(failure);
          // The code says sending the same event again gets the same answer.
          final = refusesRetry(failure);
        }
      }
    }
    return { error, final };
  }

  // Why `binding` may not receive an event of `type` now (spec 6.1.3, 5.4), if it may not: the
  // event's capability, as the integration's contract declares it now, must be one the slot
  // still asks for and the binding grants; the binding must pass the live checks. A suspended
  // binding is tried again later, since its creator may regain the provider app.
  async #refusal(
    binding: Binding,
    integration: string,
    requested: readonly string[],
    type: string,
  ): Promise<{ error: string; final: boolean } | undefined> {
    const capability = findPublisher(this.#apps(), integration)?.contract.events?.find(
      (one) => one.type === type,
    )?.capability;
    if (!capability) {
      return {
        error: `No app of the organisation publishes ${type} of "${integration}" now.`,
        final: true,
      };
    }
    if (!requested.includes(capability) || !binding.capabilities.includes(capability)) {
      return {
        error: `INTEGRATION_CAPABILITY_NOT_GRANTED: The binding of ${binding.slot} no longer grants the capability ${capability} of ${type}.`,
        final: true,
      };
    }
    try {
      const connection = await this.#connections.get(binding.connectionId);
      if ((await this.#rules.checkLive(binding, connection)) === 'revoke') {
        return {
          error: `INTEGRATION_BINDING_REQUIRED: The binding of ${binding.slot} is revoked for good: the owner of its personal connection may no longer edit ${binding.consumerAppId}.`,
          final: true,
        };
      }
    } catch (failure) {
      return { error: describe(failure), final: false };
    }
    return undefined;
  }

  // Records the attempt's outcome, unless the hold was lost meanwhile (this broker stalled past
  // it and another took the delivery over): then the other attempt's outcome counts.
  async #record(
    row: DueRow,
    leaseUntil: Date,
    error: string | null,
    final: boolean,
  ): Promise<void> {
    const now = this.#clock.now();
    const attempts = row.attempts + 1;
    const next = new Date(now.getTime() + retryDelayMs(attempts));
    const expired = next.getTime() - new Date(row.created_at).getTime() > DELIVERY_WINDOW_MS;
    const state = error === null ? 'delivered' : final || expired ? 'failed' : 'pending';
    const { rowCount } = await this.#db.query(
      `UPDATE platform.integration_event_deliveries
          SET state = $2, attempts = $3, last_error = $4, lease_until = NULL,
              next_attempt_at = $5, delivered_at = $6,
              payload = CASE WHEN $2 = 'delivered' THEN NULL ELSE payload END
        WHERE id = $1 AND lease_until = $7`,
      [
        row.id,
        state,
        attempts,
        error === null ? null : error.slice(0, limits.jobs.errorMaxLength),
        state === 'pending' ? next : null,
        state === 'delivered' ? now : null,
        leaseUntil,
      ],
    );
    if (rowCount === 0) {
      this.#print(
        `integration event ${row.id} to ${row.consumer_app_id}.${row.slot}: the attempt outlived its hold, so another one counts`,
      );
      return;
    }
    this.#activity?.(
      `integration event ${row.type} ${row.id} to ${row.consumer_app_id}.${row.slot} ${state} (attempt ${attempts})`,
    );
    if (state === 'failed') {
      this.#print(
        `integration event ${row.id} to ${row.consumer_app_id}.${row.slot} failed: ${error}`,
      );
    }
  }

  #slotOf(binding: Binding): SlotDeclaration | undefined {
    return this.#apps().find((app) => app.appId === binding.consumerAppId)?.manifest.integrations[
      binding.slot
    ];
  }

  #subscribes(binding: Binding, type: string, capability: string): boolean {
    const slot = this.#slotOf(binding);
    // What the binding holds, not what the slot requests, decides the capability.
    return (
      binding.account === 'app' &&
      slot !== undefined &&
      subscribesToEvent({ ...slot, capabilities: binding.capabilities }, type, capability)
    );
  }

  async #prune(now: Date): Promise<void> {
    this.#prunedAt = now.getTime();
    await this.#db.query(
      `DELETE FROM platform.integration_event_deliveries
        WHERE state <> 'pending' AND created_at < $1`,
      [new Date(now.getTime() - limits.integration.eventRetentionSeconds * 1000)],
    );
  }
}

function describe(failure: unknown): string {
  return failure instanceof PlatformError ? `${failure.code}: ${failure.message}` : String(failure);
}
