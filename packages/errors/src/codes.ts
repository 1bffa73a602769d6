/**
 * The HTTP status of every error code the platform itself raises, and which codes are
 * retryable: all that `PlatformError` needs at run time. What each code means is in
 * `meanings.ts`, apart, so that browser bundles (which never print meanings) do not carry it.
 * Codes from spec section 7.2 keep their names; the statuses the spec does not fix are ours
 * (docs/errors.md).
 */
export const errorStatus = {
  // Spec 7.2
  AUTH_REQUIRED: 401,
  ACCESS_DENIED: 403,
  IDEMPOTENCY_KEY_REUSED: 409,
  QUEUE_NOT_ACTIVE: 409,
  FILE_INPUT_CHANGED: 409,
  SEARCH_NOT_DECLARED: 404,
  SEARCH_INPUT_INVALID: 400,
  SEARCH_MODEL_MISMATCH: 400,
  SEARCH_DIMENSION_MISMATCH: 400,
  SEARCH_RESULT_TOO_LARGE: 422,
  SEARCH_UNAVAILABLE: 503,
  INTEGRATION_RECONNECT_REQUIRED: 409,
  INTEGRATION_CONNECTION_REQUIRED: 409,
  INTEGRATION_USER_REQUIRED: 401,
  INTEGRATION_TEST_CONNECTION_REQUIRED: 409,
  INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE: 403,
  INTEGRATION_PROVIDER_FAILED: 502,
  INTEGRATION_PROVIDER_UNAVAILABLE: 503,
  // Requests and input
  INVALID_INPUT: 400,
  INVALID_REQUEST: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  LIMIT_EXCEEDED: 400,
  RATE_LIMITED: 429,
  SDK_VERSION_UNSUPPORTED: 400,
  HOST_NOT_ALLOWED: 403,
  // Functions
  FUNCTION_NOT_FOUND: 404,
  FUNCTION_NOT_CALLABLE: 403,
  FUNCTION_FAILED: 500,
  FUNCTION_TIMEOUT: 504,
  FUNCTION_UNAVAILABLE: 503,
  FUNCTION_BUNDLE_FAILED: 500,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // Context members
  TABLE_NOT_FOUND: 404,
  ROW_NOT_FOUND: 404,
  DATA_CONSTRAINT_VIOLATION: 409,
  PERMISSION_DENIED: 403,
  FILE_NOT_FOUND: 404,
  FILE_TOO_LARGE: 413,
  STORAGE_UNAVAILABLE: 503,
  SECRET_NOT_DECLARED: 400,
  SECRET_NOT_SET: 404,
  EMAIL_ALIAS_NOT_DECLARED: 400,
  AI_INPUT_INVALID: 400,
  QUEUE_NOT_DECLARED: 404,
  JOB_NOT_FOUND: 404,
  ACTIVE_JOBS_LIMIT: 429,
  JOB_ATTEMPT_LOST: 500,
  APP_NOT_FOUND: 404,
  APP_RESTARTING: 503,
  // Organisations
  ROLE_CHANGE_FORBIDDEN: 403,
  LAST_ADMINISTRATOR: 409,
  MEMBER_NOT_FOUND: 404,
  CRON_NOT_DECLARED: 404,
  INTEGRATION_SLOT_NOT_DECLARED: 404,
  INTEGRATION_EVENT_INVALID: 400,
  INVOCATION_TOKEN_INVALID: 401,
  FEATURE_NOT_AVAILABLE: 501,
  // Transport (raised on the client side)
  NETWORK_ERROR: 0,
  TIMEOUT: 0,
  ABORTED: 0,
  INVALID_RESPONSE: 502,
  INTERNAL: 500,
} as const;

/** A code raised by the platform itself. */
export type ErrorCode = keyof typeof errorStatus;

/** The codes whose calls may succeed if sent again later. */
export const retryableCodes: ReadonlySet<string> = new Set<ErrorCode>([
  'SEARCH_UNAVAILABLE',
  'INTEGRATION_PROVIDER_UNAVAILABLE',
  'RATE_LIMITED',
  'FUNCTION_TIMEOUT',
  'FUNCTION_UNAVAILABLE',
  'ACTIVE_JOBS_LIMIT',
  'STORAGE_UNAVAILABLE',
  'APP_RESTARTING',
  'JOB_ATTEMPT_LOST',
  'NETWORK_ERROR',
  'TIMEOUT',
  'INVALID_RESPONSE',
]);

/** True when `code` is one of the platform's own codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorStatus, code);
}
