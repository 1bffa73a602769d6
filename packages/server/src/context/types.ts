import type { JsonObject, JsonValue } from '@platform/errors';
import type { Infer, Schema } from '@platform/schema';

declare const fileRefBrand: unique symbol;

/**
 * An opaque reference to a managed file. Get one from `files.upload`; store it (it is a string)
 * and pass it back to `download`, `replace`, `remove`, `info` or an AI attachment.
 */
export type FileRef = string & { readonly [fileRefBrand]: 'FileRef' };

/** A table row; `id` is the primary key. */
export type Row = { readonly id?: JsonValue } & JsonObject;

/** Equality filters: `null` means IS NULL. */
export type Where = { readonly [column: string]: string | number | boolean | null };

/** One table (`ctx.data.table(name)`). */
export interface Table<T extends Row = Row> {
  /** Rows matching every filter, ordered by `id`. */
  list(options?: { where?: Where; limit?: number; select?: readonly string[] }): Promise<T[]>;
  /** The row with this `id`, or `null` when there is none visible to the caller. */
  getById(id: string | number, options?: { select?: readonly string[] }): Promise<T | null>;
  /** Inserts `row` and returns it as stored. */
  create(row: Partial<T> & JsonObject): Promise<T>;
  /** Applies `patch` to the row with this `id` and returns it; `ROW_NOT_FOUND` when absent. */
  updateById(id: string | number, patch: Partial<T> & JsonObject): Promise<T>;
}

/** Options of `data.search` (spec 2.5). */
export interface SearchOptions {
  readonly mode: 'fullText' | 'vector' | 'hybrid';
  /** Required for `fullText` and `hybrid`. */
  readonly query?: string;
  /** Required for `vector` and `hybrid`. */
  readonly vector?: readonly number[];
  /** Required with a vector: the declared model identity. */
  readonly model?: string;
  readonly where?: Where;
  /** @default 10 */
  readonly limit?: number;
}

/** One search hit with its ranking evidence (`null` where a component is absent). */
export interface SearchHit<T extends JsonObject = JsonObject> {
  readonly record: T;
  readonly fullTextScore: number | null;
  readonly fullTextRank: number | null;
  readonly vectorDistance: number | null;
  readonly vectorSimilarity: number | null;
  readonly vectorRank: number | null;
  readonly fusionScore: number | null;
}

/** `ctx.data`. */
export interface DataClient {
  table<T extends Row = Row>(name: string): Table<T>;
  /** Runs a search declared under `data.search` (SDK 2.4.0). */
  search<T extends JsonObject = JsonObject>(
    name: string,
    options: SearchOptions,
  ): Promise<{ hits: SearchHit<T>[] }>;
}

/** Metadata of a managed file. */
export interface FileInfo {
  readonly ref: FileRef;
  readonly id: string;
  readonly name: string;
  readonly contentType: string;
  readonly size: number;
  readonly generation: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** `ctx.files`. */
export interface FilesClient {
  upload(file: { data: Uint8Array | string; name: string; contentType: string }): Promise<FileRef>;
  /** The file's bytes (`data`) and metadata. */
  download(ref: FileRef): Promise<FileInfo & { readonly data: Uint8Array }>;
  /** New content (and optionally name) under the same ref. */
  replace(
    ref: FileRef,
    file: { data: Uint8Array | string; name?: string; contentType?: string },
  ): Promise<FileRef>;
  remove(ref: FileRef): Promise<void>;
  info(idOrRef: FileRef | string): Promise<FileInfo>;
}

/** An AI attachment (spec 2.6). */
export type Attachment =
  | { readonly type: 'file'; readonly file: FileRef; readonly detail?: 'auto' | 'original' }
  | { readonly type: 'image'; readonly data: Uint8Array; readonly contentType: string };

/** Input of `ai.generateText` and `ai.streamText`. */
export interface TextRequest {
  readonly instructions?: string;
  readonly prompt: string;
  readonly attachments?: readonly Attachment[];
}

/** `ctx.ai`. The platform selects the model. */
export interface AiClient {
  generateText(request: TextRequest): Promise<{ text: string }>;
  /** The text as a stream of chunks; return it from the handler to stream it to the caller. */
  streamText(request: TextRequest): Promise<ReadableStream<string>>;
  generateObject<S extends Schema>(request: {
    prompt: string;
    schema: S;
    attachments?: readonly Attachment[];
  }): Promise<{ object: Infer<S> }>;
  generateImage(request: {
    prompt: string;
  }): Promise<{ data: Uint8Array; contentType: 'image/png'; revisedPrompt?: string }>;
}

/** An email message; `from` is a declared sender alias. */
export interface EmailMessage {
  readonly from: string;
  readonly to: string | readonly string[];
  readonly subject: string;
  readonly text?: string;
  readonly html?: string;
  readonly replyTo?: string;
}

/** `ctx.email`. */
export interface EmailClient {
  send(message: EmailMessage): Promise<{ id: string; captured: boolean }>;
}

/**
 * A visible Web Push notification to app users (docs/notifications.md). Its JSON without `to`
 * must fit one push message (`limits.push.payloadMaxBytes`), else `NOTIFICATION_TOO_LARGE`.
 */
export interface Notification {
  /** App user ids (at most 50); each of their subscribed devices receives it. */
  readonly to: string | readonly string[];
  /** At most 200 characters. */
  readonly title: string;
  /** At most 1,000 characters. */
  readonly body?: string;
  /** Opened when the notification is clicked: a path of the app or an absolute URL. */
  readonly url?: string;
  /** Shown with the notification: a path of the app or an absolute URL. */
  readonly icon?: string;
  /** A later notification with the same tag replaces this one on a device. */
  readonly tag?: string;
}

/** `ctx.notifications`. */
export interface NotificationsClient {
  /**
   * Sends to every subscribed device of the addressed users; `delivered` is how many devices'
   * push services accepted it (0, not an error, when nobody is subscribed). Throws
   * `NOTIFICATION_TOO_LARGE`, or the retryable `PUSH_SERVICE_UNAVAILABLE` when no device could
   * be reached because its push service is down.
   *
   * @example
   * ```ts
   * await ctx.notifications.send({ to: ctx.user!.id, title: 'Milk', body: 'Buy milk', url: '/todos' });
   * ```
   */
  send(notification: Notification): Promise<{ delivered: number }>;
}

/** `ctx.realtime` (docs/realtime.md). */
export interface RealtimeClient {
  /**
   * Sends `event` with `payload` to every subscriber of `channel`, whichever broker holds their
   * connection. The channel must match a `realtime.channels` entry of platform.yaml
   * (`REALTIME_CHANNEL_NOT_DECLARED`); a Function may send on it whatever its `send` rule says.
   * Its JSON (`{ event, payload }`) is at most `limits.realtime.messageMaxBytes`
   * (`REALTIME_MESSAGE_TOO_LARGE`). Resolves to the message's sequence number in the channel.
   *
   * @example
   * ```ts
   * await ctx.realtime.broadcast('room:42', 'todo-added', { id: todo.id, title: todo.title });
   * ```
   */
  broadcast(channel: string, event: string, payload: JsonValue): Promise<{ seq: number }>;
}

/** A job record (no payload, no idempotency key). */
export interface Job {
  readonly id: string;
  readonly queue: string;
  readonly state: 'queued' | 'running' | 'retry_wait' | 'succeeded' | 'dead_lettered';
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly runAt: string | null;
  readonly finishedAt: string | null;
  readonly lastError: { readonly code: string; readonly message: string } | null;
}

/** Options of `jobs.enqueue` (spec 2.7). */
export interface EnqueueOptions {
  /** Required: the same key and payload return the original job. */
  readonly idempotencyKey: string;
  /** At most seven days. */
  readonly delaySeconds?: number;
  /** Bounds only this producer's request to the broker. */
  readonly timeoutMs?: number;
  /** SDK 2.4.0: let the consumer read 1 to 16 managed files. */
  readonly files?: { readonly read: readonly string[] };
}

/** `ctx.jobs`. */
export interface JobsClient {
  enqueue(queue: string, payload: JsonObject, options: EnqueueOptions): Promise<Job>;
  get(jobId: string): Promise<Job>;
}

/** `ctx.integrations`. */
export interface IntegrationsClient {
  use(slot: string): {
    call<T extends JsonValue = JsonValue>(operation: string, input?: JsonValue): Promise<T>;
  };
}

/** `ctx.secrets`. */
export interface SecretsClient {
  /** The value, or `undefined` when the declared secret has no value. */
  get(name: string): Promise<string | undefined>;
  /** The value; `SECRET_NOT_SET` when it has none. */
  require(name: string): Promise<string>;
}

/** `ctx.log`: structured entries; secret values read through `secrets` are redacted. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** `ctx.http` (SDK 2.3.0). */
export interface HttpInfo {
  readonly method: string;
  readonly pathname: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | readonly string[]>>;
}

/** `ctx.integration` (SDK 2.6.0). */
export interface IntegrationInfo {
  readonly connectionId: string;
  readonly trigger: 'operation' | 'sync' | 'webhook' | 'oauth';
  readonly operation?: string;
  readonly consumerAppId?: string;
  /** Emits an event for this connection; returns the number of new deliveries. */
  emit(event: { type: string; id: string; data: JsonObject }): Promise<number>;
}

/** The handler context: exactly the members of spec 2.4. */
export interface HandlerContext<Input = unknown> {
  readonly input: Input;
  readonly http: HttpInfo | null;
  readonly user: { readonly id: string } | null;
  readonly job: { readonly id: string; readonly queue: string; readonly attempt: number } | null;
  readonly integration: IntegrationInfo | null;
  readonly data: DataClient;
  readonly files: FilesClient;
  readonly ai: AiClient;
  readonly email: EmailClient;
  readonly notifications: NotificationsClient;
  readonly realtime: RealtimeClient;
  readonly jobs: JobsClient;
  readonly integrations: IntegrationsClient;
  readonly secrets: SecretsClient;
  readonly log: Logger;
  readonly requestId: string;
  readonly environment: 'development' | 'production';
}
