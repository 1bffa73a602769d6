/**
 * `@platform/errors`: the one error type of the Platform SDK family, the catalog of every
 * platform error code, the helpers Functions throw, and the JSON error envelope on the wire.
 *
 * @packageDocumentation
 */
export { type CatalogEntry, errorCatalog } from './catalog.ts';
export { type ErrorCode, isErrorCode } from './codes.ts';
export {
  decodeError,
  type ErrorEnvelope,
  encodeError,
  errorFromResponse,
  errorResponse,
  toPlatformError,
} from './envelope.ts';
export { errors } from './helpers.ts';
export { refusesRetry, retriesJob } from './job-retry.ts';
export { isJsonObject, type JsonObject, type JsonValue } from './json.ts';
export {
  isPlatformError,
  PlatformError,
  type PlatformErrorCode,
  type PlatformErrorInit,
} from './platform-error.ts';
