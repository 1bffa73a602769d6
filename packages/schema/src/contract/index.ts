/**
 * `@platform/schema/contract`: the runtime contract between Functions, browsers and the broker,
 * as data. Every route pairs its method and path (from the zod-free `@platform/schema/routes`)
 * with zod request and response schemas, the error codes it answers with and the SDK version
 * that introduced it. The server SDK, the mock broker and the local broker all read this one
 * definition. The wire is described in docs/runtime-contract.md.
 *
 * @example
 * ```ts
 * import { runtimeContract } from '@platform/schema/contract';
 * const route = runtimeContract.jobsEnqueue;
 * route.method; // 'POST'
 * route.path; // '/_platform/runtime/jobs/:queue/enqueue'
 * route.request.parse(body);
 * ```
 *
 * @packageDocumentation
 */
import * as ai from './ai.ts';
import * as browser from './browser.ts';
import * as data from './data.ts';
import * as files from './files.ts';
import * as integrations from './integrations.ts';
import * as invocation from './invocation.ts';
import * as jobs from './jobs.ts';
import * as messaging from './messaging.ts';
import * as push from './push.ts';
import * as realtime from './realtime.ts';

/**
 * Every route the handler context calls on the broker, keyed like `contextRoutes`.
 *
 * @example
 * ```ts
 * runtimeContract.dataSearch.since; // '2.4.0'
 * ```
 */
export const runtimeContract = {
  dataList: data.dataList,
  dataGetById: data.dataGetById,
  dataCreate: data.dataCreate,
  dataUpdateById: data.dataUpdateById,
  dataSearch: data.dataSearch,
  filesUpload: files.filesUpload,
  filesDownload: files.filesDownload,
  filesReplace: files.filesReplace,
  filesRemove: files.filesRemove,
  filesInfo: files.filesInfo,
  aiGenerateText: ai.aiGenerateText,
  aiStreamText: ai.aiStreamText,
  aiGenerateObject: ai.aiGenerateObject,
  aiGenerateImage: ai.aiGenerateImage,
  emailSend: messaging.emailSend,
  notificationsSend: messaging.notificationsSend,
  realtimeBroadcast: realtime.realtimeBroadcast,
  jobsEnqueue: jobs.jobsEnqueue,
  jobsGet: jobs.jobsGet,
  integrationsCall: integrations.integrationsCall,
  integrationEmit: integrations.integrationEmit,
  secretsGet: integrations.secretsGet,
  log: integrations.log,
} as const;

/** The routes the function host serves to the broker. */
export const hostContract = { invoke: invocation.invoke, health: invocation.health } as const;

/** The browser-facing routes the broker serves on an app's origin. */
export const browserContract = {
  session: browser.session,
  functionCall: browser.functionCall,
  functionStream: browser.functionStream,
  pushKey: push.pushKey,
  pushSubscribe: push.pushSubscribe,
  pushUnsubscribe: push.pushUnsubscribe,
} as const;

/** The whole contract, by side. */
export const contract = {
  runtime: runtimeContract,
  host: hostContract,
  browser: browserContract,
} as const;

/** A route name of {@link runtimeContract}. */
export type RuntimeRouteName = keyof typeof runtimeContract;

/** Header carrying the pinned SDK version on every runtime route. */
export const SDK_VERSION_HEADER = 'x-platform-sdk-version';
/** Header carrying the invocation's request id on every runtime route and host answer. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** Header the host sets on a streamed (non-JSON) invocation answer. */
export const STREAM_HEADER = 'x-platform-stream';

export {
  compareVersions,
  type Feature,
  featureSince,
  isSdkVersion,
  supports,
} from '../sdk-versions.ts';
export { type FunctionAccess, functionAccessLevels } from './access.ts';
export { attachmentSchema, imageContentTypes } from './ai.ts';
export {
  gifFrames,
  type ImageContentType,
  isPdf,
  pdfPageCount,
  sniffImageType,
} from './attachment-bytes.ts';
export {
  type AttachmentReader,
  type CheckedAttachment,
  checkWireAttachments,
  type WireAttachment,
} from './attachment-check.ts';
export { browserUserSchema } from './browser.ts';
export { base64, fileRef, jsonObject, jsonValue, timestamp } from './common.ts';
export { searchHitSchema, searchOptionsSchema, whereSchema } from './data.ts';
export {
  type ContractRoute,
  commonRouteErrors,
  type DeepReadonly,
  type ResponseKind,
  type RouteRequest,
  type RouteResponse,
} from './define.ts';
export { fileInfoSchema } from './files.ts';
export {
  HOST_ADDRESS,
  HOST_PORT_ENV,
  HOST_READY_PREFIX,
  HOST_TOKEN_ENV,
} from './host-process.ts';
export {
  checkEmit,
  checkEventData,
  checkIntegrationCall,
  declaredEvent,
  type IntegrationCallCheck,
  type IntegrationContractView,
  type IntegrationEmitContract,
  type IntegrationEventAddress,
  type IntegrationEventPayload,
  type IntegrationEventSlotView,
  type IntegrationEventView,
  type IntegrationOperationView,
  type IntegrationSlotView,
  type IntegrationSubscriberView,
  integrationEventPayload,
  subscribesToEvent,
} from './integration-call.ts';
export { logEntrySchema, logLevels } from './integrations.ts';
export {
  type Declarations,
  declarationsSchema,
  httpInfoSchema,
  type Invocation,
  integrationInfoSchema,
  invocationResultSchema,
  invocationSchema,
  jobInfoSchema,
  searchDeclarationSchema,
} from './invocation.ts';
export { jobSchema, jobStates } from './jobs.ts';
export { emailMessageSchema, notificationSchema } from './messaging.ts';
export { encodeNotificationPayload, type NotificationPayload } from './notification-payload.ts';
export { pushSubscriptionSchema } from './push.ts';
export {
  matchRealtimeChannel,
  type RealtimeChannelRule,
  realtimeChannelName,
  realtimeEventName,
  realtimeMessageBytes,
} from './realtime.ts';
export { MIN_SECRET_LENGTH, REDACTED, Redactor } from './redaction.ts';
export {
  type CheckedSearchOptions,
  checkSearchOptions,
  type SearchFilterValue,
  type SearchMode,
  type SearchSummary,
} from './search-options.ts';
export { decodeTextFrames, encodeTextFrames, TEXT_FRAMES_CONTENT_TYPE } from './text-frames.ts';
