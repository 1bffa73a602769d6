import { type JsonObject, type JsonValue, PlatformError } from '@platform/errors';
import { jsonByteLength, limits } from '../limits.ts';

/** A consumer slot as a call is checked against it (spec 2.11). */
export interface IntegrationSlotView {
  readonly integration: string;
  readonly account: 'app' | 'calling_user';
  readonly capabilities: readonly string[];
}

/** An operation of a published contract as a call is checked against it (spec 2.9). */
export interface IntegrationOperationView {
  readonly name: string;
  readonly capability: string;
  /** The static output development answers with. */
  readonly fake: JsonValue;
}

/** A published contract as a call is checked against it. */
export interface IntegrationContractView {
  readonly name: string;
  readonly operations: readonly IntegrationOperationView[];
}

/** One `integrations.use(slot).call(operation, input)` to check. */
export interface IntegrationCallCheck {
  readonly slotName: string;
  /** The slot platform.yaml declares under that name, if any. */
  readonly slot: IntegrationSlotView | undefined;
  /** The contract an app of the organisation publishes under the slot's integration, if any. */
  readonly contract: IntegrationContractView | undefined;
  readonly operation: string;
  /** Whether the calling Function runs for a signed-in user. */
  readonly signedIn: boolean;
}

const fail = (code: string, message: string, details: Record<string, string>) =>
  new PlatformError({ code, message, details });

/**
 * The checks every integration call passes before any binding or provider is involved, shared
 * by the broker and the test kit so both refuse the same call with the same code: the slot is
 * declared (`INTEGRATION_SLOT_NOT_DECLARED`), its integration is published
 * (`INTEGRATION_NOT_FOUND`), the operation exists (`INTEGRATION_OPERATION_NOT_FOUND`), the slot
 * requests its capability (`INTEGRATION_CAPABILITY_NOT_GRANTED`), and a `calling_user` slot
 * has a signed-in user (`INTEGRATION_USER_REQUIRED`). Answers the operation, whose `fake` is
 * the development answer.
 *
 * @example
 * ```ts
 * const operation = checkIntegrationCall({ slotName: 'crm', slot, contract, operation: 'contacts.list', signedIn: true });
 * return operation.fake;
 * ```
 */
export function checkIntegrationCall(call: IntegrationCallCheck): IntegrationOperationView {
  const { slotName, slot, contract } = call;
  if (!slot) {
    throw fail(
      'INTEGRATION_SLOT_NOT_DECLARED',
      `platform.yaml declares no integration slot "${slotName}".`,
      { slot: slotName },
    );
  }
  if (!contract || contract.name !== slot.integration) {
    throw fail(
      'INTEGRATION_NOT_FOUND',
      `No app of the organisation publishes "${slot.integration}" now.`,
      { integration: slot.integration },
    );
  }
  const operation = contract.operations.find((one) => one.name === call.operation);
  if (!operation) {
    const offered = contract.operations.map((one) => one.name).join(', ') || 'none';
    throw fail(
      'INTEGRATION_OPERATION_NOT_FOUND',
      `"${contract.name}" has no operation "${call.operation}"; it offers ${offered}.`,
      { slot: slotName, operation: call.operation },
    );
  }
  if (!slot.capabilities.includes(operation.capability)) {
    throw fail(
      'INTEGRATION_CAPABILITY_NOT_GRANTED',
      `${operation.name} needs the capability ${operation.capability}, which the slot ${slotName} does not request.`,
      { slot: slotName, capability: operation.capability },
    );
  }
  if (slot.account === 'calling_user' && !call.signedIn) {
    throw fail(
      'INTEGRATION_USER_REQUIRED',
      `The slot ${slotName} acts for the signed-in person, and this call has none.`,
      { slot: slotName },
    );
  }
  return operation;
}

/**
 * Refuses event data over 64 KiB of JSON (`LIMIT_EXCEEDED`), as both the server SDK (before
 * sending) and the broker (which does not trust the SDK) check an `integration.emit`.
 */
export function checkEventData(data: JsonObject): void {
  const size = jsonByteLength(data);
  const max = limits.integration.eventDataMaxBytes;
  if (size > max) {
    throw new PlatformError({
      code: 'LIMIT_EXCEEDED',
      message: `The event data is ${size} bytes of JSON; at most ${max} are allowed.`,
      details: { size, limit: max },
    });
  }
}

/** An event a published contract declares, as an emit is checked against it (spec 2.9). */
export interface IntegrationEventView {
  readonly type: string;
  readonly capability: string;
  /** The default synthetic payload. */
  readonly fake: JsonValue;
}

/** The contract an app publishes, as its emits are checked against it. */
export interface IntegrationEmitContract {
  readonly name: string;
  readonly events?: readonly IntegrationEventView[] | undefined;
}

const invalidEvent = (message: string, details: Record<string, string> = {}) =>
  new PlatformError({ code: 'INTEGRATION_EVENT_INVALID', message, details });

/**
 * The event `type` of `contract`; `INTEGRATION_EVENT_INVALID` naming the declared types when it
 * declares none of that name.
 */
export function declaredEvent(
  contract: IntegrationEmitContract,
  type: string,
): IntegrationEventView {
  const declared = contract.events?.find((one) => one.type === type);
  if (!declared) {
    const known = (contract.events ?? []).map((one) => one.type).join(', ') || 'none';
    throw invalidEvent(`"${contract.name}" declares no event ${type}; it declares ${known}.`, {
      type,
    });
  }
  return declared;
}

/**
 * The checks of an `integration.emit` (spec 6.1), shared by the broker and the test kit so both
 * refuse the same emit with the same code: it runs inside an integration invocation other than
 * an OAuth exchange or refresh, the provider's contract declares the event type (all
 * `INTEGRATION_EVENT_INVALID`), and the data is at most 64 KiB (`LIMIT_EXCEEDED`). Answers the
 * declared event.
 */
export function checkEmit(
  contract: IntegrationEmitContract | undefined,
  invocation: { readonly trigger: string } | null | undefined,
  event: { readonly type: string; readonly data: JsonObject },
): IntegrationEventView {
  if (!invocation) {
    throw invalidEvent('integration.emit is available only while an integration Function runs.');
  }
  if (invocation.trigger === 'oauth') {
    throw invalidEvent('integration.emit is unavailable during OAuth exchange and refresh.');
  }
  if (!contract) throw invalidEvent('This app publishes no integration to emit events for.');
  const declared = declaredEvent(contract, event.type);
  checkEventData(event.data);
  return declared;
}

/** A consumer slot as an event is addressed to it (spec 2.11). */
export interface IntegrationEventSlotView {
  /** The slot's `provider`: `custom` for an organisation-built integration. */
  readonly provider: string;
  readonly integration: string;
  readonly account: 'app' | 'calling_user';
  readonly capabilities: readonly string[];
  /** The slot's subscription (`events`), if it has one. */
  readonly events?:
    | { readonly function: string; readonly types?: readonly string[] | undefined }
    | undefined;
}

/**
 * The payload a slot's events Function receives (spec 2.11). `integration` is the slot name;
 * `provider` is the slot's declared `provider`, `custom` for an organisation-built integration,
 * never the app that publishes it; `bindingId` is `null` for an event injected into an unbound
 * slot in development.
 */
export interface IntegrationEventPayload {
  readonly id: string;
  readonly type: string;
  readonly occurredAt: string;
  readonly integration: string;
  readonly provider: string;
  readonly bindingId: string | null;
  readonly data: JsonObject;
}

/** One event to address to a consumer slot with {@link integrationEventPayload}. */
export interface IntegrationEventAddress {
  readonly slotName: string;
  /** The slot platform.yaml declares under that name, if any. */
  readonly slot: IntegrationEventSlotView | undefined;
  /** The contract an app of the organisation publishes under the slot's integration, if any. */
  readonly contract: IntegrationEmitContract | undefined;
  readonly type: string;
  readonly id: string;
  /** The event's data; the declared `fake` of its type when absent. */
  readonly data?: JsonObject | undefined;
  readonly occurredAt: string;
  readonly bindingId: string | null;
}

/**
 * The payload of an event for a consumer slot, built by the broker (injected and emitted events)
 * and the test kit alike, after the checks a synthetic event passes: the slot is declared
 * (`INTEGRATION_SLOT_NOT_DECLARED`), its integration is published (`INTEGRATION_NOT_FOUND`), it is
 * an `account: app` slot that subscribes to the type, the contract declares the type, and the
 * slot requests its capability (all `INTEGRATION_EVENT_INVALID`); data over 64 KiB is
 * `LIMIT_EXCEEDED`.
 *
 * @example
 * ```ts
 * const payload = integrationEventPayload({ slotName: 'crm', slot, contract, type: 'contact.updated', id: 'evt-1', occurredAt, bindingId: null });
 * payload.provider; // 'custom'
 * ```
 */
export function integrationEventPayload(event: IntegrationEventAddress): IntegrationEventPayload {
  const { slotName, slot, contract } = event;
  if (!slot) {
    throw fail(
      'INTEGRATION_SLOT_NOT_DECLARED',
      `platform.yaml declares no integration slot "${slotName}".`,
      { slot: slotName },
    );
  }
  if (slot.account !== 'app' || !slot.events) {
    throw invalidEvent(
      `The slot ${slotName} subscribes to no events (integrations.${slotName}.events).`,
      { slot: slotName },
    );
  }
  if (!contract || contract.name !== slot.integration) {
    throw fail(
      'INTEGRATION_NOT_FOUND',
      `No app of the organisation publishes "${slot.integration}" now.`,
      { integration: slot.integration },
    );
  }
  const declared = declaredEvent(contract, event.type);
  if (slot.events.types && !slot.events.types.includes(event.type)) {
    throw invalidEvent(`The slot ${slotName} does not subscribe to ${event.type}.`, {
      slot: slotName,
    });
  }
  if (!slot.capabilities.includes(declared.capability)) {
    throw invalidEvent(
      `${event.type} belongs to the capability ${declared.capability}, which the slot ${slotName} does not request.`,
      { slot: slotName },
    );
  }
  const data = event.data ?? (declared.fake as JsonObject);
  checkEventData(data);
  return {
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt,
    integration: slotName,
    provider: slot.provider,
    bindingId: event.bindingId,
    data,
  };
}

/**
 * A consumer slot bound to the emitting connection, as an emitted event is matched against it:
 * the slot's account, the capabilities its binding holds and its `events` subscription
 * (platform.yaml `integrations.<slot>`; a slot declaration fits as it is).
 */
export interface IntegrationSubscriberView {
  readonly account: 'app' | 'calling_user';
  readonly capabilities: readonly string[];
  readonly events?: { readonly types?: readonly string[] | undefined } | undefined;
}

/**
 * Whether an emitted event of `type` (belonging to `capability`) is delivered to `subscriber`
 * (spec 6.1): an app-account slot that subscribes to events, to this type (or to all), and
 * holds the event's capability. The broker counts one new delivery per such binding; the test
 * kit counts its seeded subscribers by the same rule (`capability` `undefined`: not checked, for
 * a test kit that was not given the provider's contract).
 */
export function subscribesToEvent(
  subscriber: IntegrationSubscriberView,
  type: string,
  capability: string | undefined,
): boolean {
  return (
    subscriber.account === 'app' &&
    subscriber.events !== undefined &&
    (subscriber.events.types === undefined || subscriber.events.types.includes(type)) &&
    (capability === undefined || subscriber.capabilities.includes(capability))
  );
}
