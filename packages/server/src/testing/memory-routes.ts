import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import {
  checkEmit,
  checkIntegrationCall,
  checkWireAttachments,
  type DeepReadonly,
  encodeNotificationPayload,
  encodeTextFrames,
  matchRealtimeChannel,
  type RouteRequest,
  type RouteResponse,
  type RuntimeRouteName,
  realtimeMessageBytes,
  type runtimeContract,
  subscribesToEvent,
} from '@platform/schema/contract';
import { fromBase64, toBase64 } from '../context/bytes.ts';
import type { MemoryState } from './memory-state.ts';
import { offlineChunks } from './offline-ai/index.ts';

type Contract = typeof runtimeContract;

/** What one route implementation receives. */
export interface RouteCall<N extends RuntimeRouteName> {
  readonly params: Readonly<Record<string, string>>;
  readonly body: RouteRequest<Contract[N]>;
  readonly state: MemoryState;
  /** The caller's user id, or `null` for system identity. */
  readonly userId: string | null;
}

/** One in-memory route: a JSON body, or a byte stream for streaming routes. */
export type RouteImpl<N extends RuntimeRouteName> = (
  call: RouteCall<N>,
) =>
  | Out<N>
  | ReadableStream<Uint8Array>
  | Promise<Out<N>>
  | Promise<Out<N> | ReadableStream<Uint8Array>>;

type Out<N extends RuntimeRouteName> = DeepReadonly<RouteResponse<Contract[N]>>;

const fail = (code: string, message: string, details?: JsonObject) =>
  new PlatformError({ code, message, details });

function table(state: MemoryState, name: string): JsonObject[] {
  const rows = state.tables.get(name);
  if (!rows) throw fail('TABLE_NOT_FOUND', `No table ${name}`, { table: name });
  return rows;
}

function pick(row: JsonObject, select: readonly string[] | undefined): JsonObject {
  if (!select) return structuredClone(row);
  return Object.fromEntries(
    select.filter((c) => Object.hasOwn(row, c)).map((c) => [c, structuredClone(row[c] ?? null)]),
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function file(state: MemoryState, ref: string) {
  const stored = state.files.get(ref);
  if (!stored) throw fail('FILE_NOT_FOUND', `No file ${ref}`, { ref });
  return stored;
}

/**
 * The broker's own attachment check, over the in-memory files: the same attachments are refused
 * with the same code (a PDF beside an image, a PDF over its page limit, bytes of another type).
 */
function checkAttachments(
  state: MemoryState,
  attachments: Parameters<typeof checkWireAttachments>[0],
): Promise<unknown> {
  return checkWireAttachments(attachments, {
    readFile: async (ref) => {
      const stored = file(state, ref);
      return { data: stored.data, contentType: stored.info.contentType };
    },
    decodeBase64: fromBase64,
  });
}

/**
 * The in-memory behaviour of every runtime route, with the semantics the real broker has
 * (tables ordered by id, idempotent enqueue, file generations, captured email). The mapped
 * type makes a missing route a compile error, so the mock grows with the contract.
 */
export const memoryRoutes: { readonly [N in RuntimeRouteName]: RouteImpl<N> } = {
  dataList({ params, body, state }) {
    const rows = table(state, params.table ?? '')
      .filter((row) => Object.entries(body.where ?? {}).every(([k, v]) => (row[k] ?? null) === v))
      .sort((a, b) => String(a.id).localeCompare(String(b.id), 'en', { numeric: true }));
    return { rows: rows.slice(0, body.limit ?? 100).map((row) => pick(row, body.select)) };
  },
  dataGetById({ params, body, state }) {
    const row = table(state, params.table ?? '').find((r) => r.id === body.id);
    return { row: row ? pick(row, body.select) : null };
  },
  dataCreate({ params, body, state }) {
    const rows = table(state, params.table ?? '');
    const row = { id: crypto.randomUUID(), ...structuredClone(body.row) } as JsonObject;
    if (rows.some((r) => r.id === row.id)) {
      throw fail('DATA_CONSTRAINT_VIOLATION', `A row with id ${String(row.id)} exists`, {
        constraint: 'primary key',
      });
    }
    rows.push(row);
    return { row: structuredClone(row) };
  },
  dataUpdateById({ params, body, state }) {
    const rows = table(state, params.table ?? '');
    const index = rows.findIndex((r) => r.id === body.id);
    const current = rows[index];
    if (!current) throw fail('ROW_NOT_FOUND', `No row ${String(body.id)}`, { id: body.id });
    const row = { ...current, ...structuredClone(body.patch), id: current.id ?? null };
    rows[index] = row;
    return { row: structuredClone(row) };
  },
  dataSearch({ params, body, state }) {
    const search = state.seed.searches?.[params.name ?? ''];
    if (!search) throw fail('SEARCH_NOT_DECLARED', `No search ${params.name}`);
    return { hits: search(body).slice(0, body.limit ?? 10) };
  },
  filesUpload({ body, state }) {
    const data = fromBase64(body.data);
    const id = `file_${crypto.randomUUID()}`;
    const stored = {
      info: state.fileInfo(id, body.name, body.contentType, data.byteLength, 1),
      data,
    };
    state.files.set(id, stored);
    return { file: stored.info };
  },
  filesDownload({ body, state }) {
    const stored = file(state, body.ref);
    return { file: stored.info, data: toBase64(stored.data) };
  },
  filesReplace({ body, state }) {
    const stored = file(state, body.ref);
    const data = fromBase64(body.data);
    stored.data = data;
    stored.info = {
      ...stored.info,
      name: body.name ?? stored.info.name,
      contentType: body.contentType ?? stored.info.contentType,
      size: data.byteLength,
      generation: stored.info.generation + 1,
      updatedAt: state.now(),
    };
    return { file: stored.info };
  },
  filesRemove({ body, state }) {
    file(state, body.ref);
    state.files.delete(body.ref);
    return { ok: true };
  },
  filesInfo: ({ body, state }) => ({ file: file(state, body.ref).info }),
  aiGenerateText: async ({ body, state }) => {
    await checkAttachments(state, body.attachments);
    const text = state.seed.ai?.generateText?.(body);
    return text === undefined ? state.offlineAi.generateText(body) : { text };
  },
  async aiStreamText({ body, state }) {
    await checkAttachments(state, body.attachments);
    const seeded = state.seed.ai?.streamText?.(body);
    const text = seeded === undefined ? state.seed.ai?.generateText?.(body) : undefined;
    const chunks: (string | PlatformError)[] = [
      ...(seeded ?? (text === undefined ? state.offlineAi.streamText(body) : offlineChunks(text))),
    ];
    // A PlatformError among the chunks fails the stream there, as a provider failing midway
    // does under the broker.
    return encodeTextFrames(
      new ReadableStream<string>({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk === undefined) controller.close();
          else if (typeof chunk === 'string') controller.enqueue(chunk);
          else controller.error(chunk);
        },
      }),
    );
  },
  aiGenerateObject: async ({ body, state }) => {
    await checkAttachments(state, body.attachments);
    const object = state.seed.ai?.generateObject?.(body);
    return object === undefined ? state.offlineAi.generateObject(body) : { object };
  },
  aiGenerateImage({ body, state }) {
    const image = state.seed.ai?.generateImage?.(body) ?? state.offlineAi.generateImage(body);
    return {
      data: toBase64(image.data),
      contentType: 'image/png',
      ...('revisedPrompt' in image && image.revisedPrompt !== undefined
        ? { revisedPrompt: image.revisedPrompt }
        : {}),
    };
  },
  emailSend({ body, state }) {
    state.emails.push(body);
    return { id: `email_${state.emails.length}`, captured: true };
  },
  notificationsSend({ body, state }) {
    // The broker's own check: the same notifications are refused with the same code.
    encodeNotificationPayload(body);
    state.notifications.push(body);
    // Like the broker: each addressed user once, and every device of theirs counts; a user with
    // no seeded device receives nothing.
    const to = [...new Set(typeof body.to === 'string' ? [body.to] : body.to)];
    const { subscribedUsers = [], pushDevices = {} } = state.seed;
    const devices = (id: string) =>
      (subscribedUsers.includes(id) ? 1 : 0) +
      (Object.hasOwn(pushDevices, id) ? (pushDevices[id] ?? 0) : 0);
    return { delivered: to.reduce((sum, id) => sum + devices(id), 0) };
  },
  realtimeBroadcast({ body, state }) {
    const channels = state.seed.realtimeChannels;
    if (channels !== undefined && matchRealtimeChannel(channels, body.channel) === undefined) {
      throw fail(
        'REALTIME_CHANNEL_NOT_DECLARED',
        `No realtime.channels entry of platform.yaml matches "${body.channel}".`,
        { channel: body.channel },
      );
    }
    const bytes = realtimeMessageBytes({ event: body.event, payload: body.payload });
    if (bytes > limits.realtime.messageMaxBytes) {
      throw fail(
        'REALTIME_MESSAGE_TOO_LARGE',
        `The realtime message is ${bytes} bytes of JSON; at most ${limits.realtime.messageMaxBytes} are allowed.`,
        { bytes, maxBytes: limits.realtime.messageMaxBytes },
      );
    }
    state.broadcasts.push(body);
    return { seq: state.broadcasts.length };
  },
  jobsEnqueue({ params, body, state }) {
    const queue = params.queue ?? '';
    const declared = state.seed.queues?.find((q) => (typeof q === 'string' ? q : q.name) === queue);
    if (state.seed.queues && declared === undefined) {
      throw fail('QUEUE_NOT_DECLARED', `No queue ${queue}`, { queue });
    }
    // The queue's policy is pinned at enqueue, as on the broker.
    const maxAttempts =
      (typeof declared === 'object' ? declared.maxAttempts : undefined) ??
      limits.queues.maxAttempts.default;
    const existing = state.jobs.find(
      (j) => j.job.queue === queue && j.idempotencyKey === body.idempotencyKey,
    );
    if (existing) {
      if (!same(existing.payload, body.payload)) {
        throw fail(
          'IDEMPOTENCY_KEY_REUSED',
          'The idempotency key was used with a different payload.',
        );
      }
      return { job: existing.job, created: false };
    }
    const at = state.now();
    const job = {
      id: `job_${state.jobs.length + 1}`,
      queue,
      state: 'queued' as const,
      attempt: 0,
      maxAttempts,
      createdAt: at,
      updatedAt: at,
      runAt: new Date(Date.parse(at) + (body.delaySeconds ?? 0) * 1000).toISOString(),
      finishedAt: null,
      lastError: null,
    };
    state.jobs.push({
      job,
      payload: body.payload,
      idempotencyKey: body.idempotencyKey,
      delaySeconds: body.delaySeconds,
      files: body.files?.read,
    });
    return { job, created: true };
  },
  jobsGet({ body, state }) {
    const stored = state.jobs.find((j) => j.job.id === body.id);
    if (!stored) throw fail('JOB_NOT_FOUND', `No job ${body.id}`);
    return { job: stored.job };
  },
  integrationsCall({ params, body, state, userId }) {
    const slot = params.slot ?? '';
    const declared = state.seed.integrationSlots?.[slot];
    const operations = state.seed.integrations?.[slot];
    const seeded = operations?.[body.operation];
    if (declared || !operations) {
      const operation = checkIntegrationCall({
        slotName: slot,
        slot: declared?.slot,
        contract: declared?.contract,
        operation: body.operation,
        signedIn: userId !== null,
      });
      state.integrationCalls.push({ slot, operation: body.operation, input: body.input });
      return { output: seeded ? seeded(body.input) : operation.fake };
    }
    if (!seeded) throw fail('INTEGRATION_OPERATION_NOT_FOUND', `No operation ${body.operation}`);
    state.integrationCalls.push({ slot, operation: body.operation, input: body.input });
    return { output: seeded(body.input) };
  },
  integrationEmit({ body, state }) {
    const { providedIntegration, integrationInvocation, eventSubscribers = [] } = state.seed;
    const declared = providedIntegration
      ? checkEmit(providedIntegration, integrationInvocation, {
          type: body.type,
          data: body.data as JsonObject,
        })
      : undefined;
    const seen = state.events.some((e) => e.type === body.type && e.id === body.id);
    state.events.push(body);
    if (seen) return { deliveries: 0 };
    if (state.seed.emitDeliveries !== undefined) return { deliveries: state.seed.emitDeliveries };
    // One delivery per subscribed slot, by the broker's rule; without the contract the event's
    // capability is unknown and goes unchecked.
    const deliveries = eventSubscribers.filter((slot) =>
      subscribesToEvent(slot, body.type, declared?.capability),
    ).length;
    return { deliveries };
  },
  secretsGet({ body, state }) {
    const secrets = state.seed.secrets ?? {};
    if (!Object.hasOwn(secrets, body.name))
      throw fail('SECRET_NOT_DECLARED', `Secret ${body.name} is not declared`);
    return { value: secrets[body.name] ?? null };
  },
  log({ body, state }) {
    state.logs.push(...body.entries);
    return { ok: true };
  },
};
