/**
 * `@platform/server`: write Functions. `defineFunction`, the schema helpers `s`, the error
 * helpers, `PLATFORM_SDK_VERSION`, the handler context types and the function host.
 *
 * @example
 * ```ts
 * import { defineFunction, s } from '@platform/server';
 *
 * export default defineFunction({
 *   input: s.object({ title: s.string({ minLength: 1 }) }),
 *   handler: (ctx) => ctx.data.table('todos').create({ title: ctx.input.title }),
 * });
 * ```
 *
 * @packageDocumentation
 */
export {
  type ErrorCode,
  errorCatalog,
  errors,
  isPlatformError,
  type JsonObject,
  type JsonValue,
  PlatformError,
} from '@platform/errors';
export {
  type Infer,
  type Schema,
  s,
  type WebhookForward,
  webhookForwardSchema,
} from '@platform/schema';
export type { FunctionAccess } from '@platform/schema/contract';
export type {
  AiClient,
  Attachment,
  DataClient,
  EmailClient,
  EmailMessage,
  EnqueueOptions,
  FileInfo,
  FileRef,
  FilesClient,
  HandlerContext,
  HttpInfo,
  IntegrationInfo,
  IntegrationsClient,
  Job,
  JobsClient,
  Logger,
  Notification,
  NotificationsClient,
  RealtimeClient,
  Row,
  SearchHit,
  SearchOptions,
  SecretsClient,
  Table,
  TextRequest,
  Where,
} from './context/types.ts';
export {
  defineFunction,
  type FunctionDefinition,
  type HandlerResult,
  isPlatformFunction,
  type PlatformFunction,
} from './define-function.ts';
export type { FunctionTypes, Jsonify } from './function-types.ts';
export {
  createFunctionHost,
  type FetchHandler,
  type FunctionHostOptions,
} from './host/create-host.ts';
export { type HostOptions, runInvocation } from './host/run-invocation.ts';
export { type InboundEmail, inboundEmailSchema } from './inbound-email.ts';
export { PLATFORM_SDK_VERSION } from './version.ts';
