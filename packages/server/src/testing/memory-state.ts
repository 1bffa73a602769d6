import type { JsonObject, JsonValue, PlatformError } from '@platform/errors';
import type {
  DeepReadonly,
  IntegrationContractView,
  IntegrationEmitContract,
  IntegrationSlotView,
  IntegrationSubscriberView,
  RouteRequest,
  RouteResponse,
  runtimeContract,
} from '@platform/schema/contract';
import { type AiFixture, createOfflineAi, type OfflineAi } from './offline-ai/index.ts';

type Contract = typeof runtimeContract;
type Body<N extends keyof Contract> = RouteRequest<Contract[N]>;

/** A stored file of the in-memory broker. */
export interface StoredFile {
  info: RouteResponse<Contract['filesInfo']>['file'];
  data: Uint8Array;
}

/** A job the in-memory broker holds, with what the record never shows. */
export interface StoredJob {
  job: RouteResponse<Contract['jobsGet']>['job'];
  payload: JsonObject;
  idempotencyKey: string;
  delaySeconds: number | undefined;
  files: readonly string[] | undefined;
}

/**
 * Overrides of the offline AI: each function answers one kind of call. What is not overridden
 * is answered by the same deterministic offline AI the local broker uses (`fixtures` pin
 * answers for chosen prompts there too).
 */
export interface FakeAi {
  /** Pinned answers, in the format of the app folder's `ai-fixtures.yaml`. */
  fixtures?: readonly AiFixture[];
  generateText?: (request: Body<'aiGenerateText'>) => string;
  /**
   * The chunks of `streamText`, in order; a `PlatformError` among them fails the stream at that
   * point with its code, as a provider that fails after the first chunk does under the broker.
   * Without it, `streamText` streams what `generateText` (or the offline AI) answers.
   */
  streamText?: (request: Body<'aiStreamText'>) => readonly (string | PlatformError)[];
  generateObject?: (request: Body<'aiGenerateObject'>) => JsonValue;
  generateImage?: (request: Body<'aiGenerateImage'>) => {
    data: Uint8Array;
    revisedPrompt?: string;
  };
}

/** A declared queue of the in-memory broker, as platform.yaml `queues[]` declares it. */
export interface TestQueue {
  readonly name: string;
  /** Total delivery attempts. @default the manifest default (`limits.queues.maxAttempts`) */
  readonly maxAttempts?: number | undefined;
}

/** What the in-memory broker is seeded with. Everything is optional. */
export interface MemoryBrokerSeed {
  /** Tables by name, as arrays of rows. Only these tables exist (`TABLE_NOT_FOUND` otherwise). */
  readonly data?: Readonly<Record<string, readonly JsonObject[]>>;
  /** Files to pre-load, by id: bytes (or a string), name and content type. */
  readonly files?: Readonly<
    Record<string, { data: Uint8Array | string; name: string; contentType: string }>
  >;
  /** Declared secrets and their values (`null`: declared, no value). */
  readonly secrets?: Readonly<Record<string, string | null>>;
  /**
   * Declared queues: names, or declarations as platform.yaml `queues[]` has them (a job then
   * reports the queue's `maxAttempts`, else the manifest default, as the broker does). When
   * omitted every queue name is accepted, with the default `maxAttempts`.
   */
  readonly queues?: readonly (string | TestQueue)[];
  /** Search results by search name: a function of the options, or fixed hits. */
  readonly searches?: Readonly<
    Record<
      string,
      (options: Body<'dataSearch'>) => DeepReadonly<RouteResponse<Contract['dataSearch']>['hits']>
    >
  >;
  /**
   * Integration slots as platform.yaml declares them, each with the contract it uses (see
   * `integrationSlotsFrom`): calls are checked as the broker checks them and, in development,
   * answer the operation's declared `fake` unless `integrations` seeds the operation.
   */
  readonly integrationSlots?: Readonly<
    Record<
      string,
      { readonly slot: IntegrationSlotView; readonly contract?: IntegrationContractView }
    >
  >;
  /** Integration operations by slot and operation name. */
  readonly integrations?: Readonly<
    Record<string, Readonly<Record<string, (input: JsonValue) => JsonValue>>>
  >;
  /**
   * The integration this app publishes (platform.yaml `provides.integration`): an
   * `integration.emit` is then checked as the broker checks it (declared type, data size).
   * @default unchecked
   */
  readonly providedIntegration?: IntegrationEmitContract | undefined;
  /**
   * The integration invocation the handler runs in (`createTestContext` sets it from its
   * `integration` option); with {@link MemoryBrokerSeed.providedIntegration}, an emit outside one or
   * during OAuth exchange or refresh is refused as the broker refuses it.
   */
  readonly integrationInvocation?: { readonly trigger: string } | null;
  /**
   * The consumer slots bound to the emitting connection (platform.yaml `integrations.<slot>`
   * declarations fit as they are): `integration.emit` of a new event id reports one delivery per
   * slot that subscribes to the event, as the broker in production does. @default none
   */
  readonly eventSubscribers?: readonly IntegrationSubscriberView[];
  /**
   * Deliveries `integration.emit` reports per new event id, instead of counting
   * {@link MemoryBrokerSeed.eventSubscribers}. `createTestContext` sets 0 in development (an emit
   * there delivers nothing, as under `platform dev`).
   */
  readonly emitDeliveries?: number;
  /**
   * Users with a push subscription, one device each (notifications to others deliver 0).
   * @default nobody
   */
  readonly subscribedUsers?: readonly string[];
  /**
   * Push devices by user id: how many subscribed devices each user has (the broker counts
   * devices, not users). Adds to {@link MemoryBrokerSeed.subscribedUsers}. @default none
   */
  readonly pushDevices?: Readonly<Record<string, number>>;
  /**
   * `realtime.channels` of platform.yaml: a broadcast to a channel none matches is refused with
   * `REALTIME_CHANNEL_NOT_DECLARED`, as the broker refuses it. @default every channel accepted
   */
  readonly realtimeChannels?: Readonly<Record<string, unknown>>;
  /** A fake AI; the defaults echo the prompt. */
  readonly ai?: FakeAi;
}

/** The observable state of an in-memory broker: tables, files and everything captured. */
export class MemoryState {
  readonly tables = new Map<string, JsonObject[]>();
  readonly files = new Map<string, StoredFile>();
  readonly jobs: StoredJob[] = [];
  readonly emails: Body<'emailSend'>[] = [];
  readonly notifications: Body<'notificationsSend'>[] = [];
  readonly broadcasts: Body<'realtimeBroadcast'>[] = [];
  readonly logs: Body<'log'>['entries'] = [];
  readonly events: Body<'integrationEmit'>[] = [];
  readonly integrationCalls: { slot: string; operation: string; input: JsonValue }[] = [];
  readonly seed: MemoryBrokerSeed;
  /** The deterministic AI answering every AI call the seed does not override. */
  readonly offlineAi: OfflineAi;
  #clock = 0;

  constructor(seed: MemoryBrokerSeed = {}) {
    this.seed = seed;
    this.offlineAi = createOfflineAi({ fixtures: seed.ai?.fixtures });
    for (const [name, rows] of Object.entries(seed.data ?? {})) {
      this.tables.set(
        name,
        rows.map((row) => structuredClone(row) as JsonObject),
      );
    }
    for (const [id, file] of Object.entries(seed.files ?? {})) {
      const data = typeof file.data === 'string' ? new TextEncoder().encode(file.data) : file.data;
      this.files.set(id, {
        info: this.fileInfo(id, file.name, file.contentType, data.byteLength, 1),
        data,
      });
    }
  }

  /** A strictly increasing ISO timestamp, so records order deterministically. */
  now(): string {
    this.#clock += 1;
    return new Date(Date.UTC(2026, 0, 1) + this.#clock).toISOString();
  }

  fileInfo(
    id: string,
    name: string,
    contentType: string,
    size: number,
    generation: number,
  ): StoredFile['info'] {
    const at = this.now();
    return { ref: id, id, name, contentType, size, generation, createdAt: at, updatedAt: at };
  }
}
