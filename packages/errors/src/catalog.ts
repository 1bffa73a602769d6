/** One entry of the error catalog: how a code travels over HTTP and what it means. */
export interface CatalogEntry {
  /** HTTP status the broker answers with. */
  readonly status: number;
  /** Whether the same request may succeed if sent again later. */
  readonly retryable: boolean;
  /** One line a person can act on. */
  readonly meaning: string;
}

const entry = (status: number, retryable: boolean, meaning: string): CatalogEntry => ({
  status,
  retryable,
  meaning,
});

/**
 * Every error code the platform itself raises, with its HTTP status, whether it is retryable
 * and what it means. Codes from spec section 7.2 keep their names; the statuses the spec does
 * not fix are ours (see docs/errors.md). Functions may throw their own codes through
 * {@link errors}; those are not listed here.
 */
export const errorCatalog = {
  // Spec 7.2
  AUTH_REQUIRED: entry(401, false, 'The operation needs a signed-in user and there is none.'),
  ACCESS_DENIED: entry(403, false, 'The signed-in account has no grant to this private app.'),
  IDEMPOTENCY_KEY_REUSED: entry(
    409,
    false,
    'The idempotency key was already used in this queue with a different payload.',
  ),
  QUEUE_NOT_ACTIVE: entry(
    409,
    false,
    'The job was dead-lettered because its queue is no longer declared.',
  ),
  FILE_INPUT_CHANGED: entry(409, false, 'A delegated file was replaced after the grant was made.'),
  SEARCH_NOT_DECLARED: entry(404, false, 'No search with this name is declared in platform.yaml.'),
  SEARCH_INPUT_INVALID: entry(
    400,
    false,
    'The search options break a rule of the declared search.',
  ),
  SEARCH_MODEL_MISMATCH: entry(
    400,
    false,
    'The vector model differs from the declared model identity.',
  ),
  SEARCH_DIMENSION_MISMATCH: entry(
    400,
    false,
    'The vector length differs from the declared dimensions.',
  ),
  SEARCH_RESULT_TOO_LARGE: entry(
    422,
    false,
    'A record or the whole response exceeds the search size limits.',
  ),
  SEARCH_UNAVAILABLE: entry(503, true, 'Search is temporarily unavailable; try again.'),
  INTEGRATION_RECONNECT_REQUIRED: entry(
    409,
    false,
    'The connection must be reconnected before it can be used.',
  ),
  INTEGRATION_CONNECTION_REQUIRED: entry(
    409,
    false,
    'The signed-in person has no personal connection for this slot.',
  ),
  INTEGRATION_USER_REQUIRED: entry(
    401,
    false,
    'A calling_user slot was used without a signed-in user.',
  ),
  INTEGRATION_TEST_CONNECTION_REQUIRED: entry(
    409,
    false,
    'A development invocation of a provider Function needs a test connection.',
  ),
  INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE: entry(
    403,
    false,
    'OAuth exchange and refresh Functions cannot be invoked in development.',
  ),
  INTEGRATION_PROVIDER_FAILED: entry(502, false, 'The provider operation failed.'),
  INTEGRATION_PROVIDER_UNAVAILABLE: entry(
    503,
    true,
    'The provider is temporarily unavailable; try again.',
  ),

  // Requests and input
  INVALID_INPUT: entry(400, false, 'The input does not match the declared schema.'),
  INVALID_REQUEST: entry(
    400,
    false,
    'The request is malformed (for example, its body is not valid JSON).',
  ),
  UNSUPPORTED_MEDIA_TYPE: entry(
    415,
    false,
    'The request has a content type this route does not accept.',
  ),
  PAYLOAD_TOO_LARGE: entry(413, false, 'The request body is larger than the route accepts.'),
  LIMIT_EXCEEDED: entry(400, false, 'A value is outside a documented platform limit.'),
  RATE_LIMITED: entry(429, true, 'Too many attempts; wait and try again.'),
  SDK_VERSION_UNSUPPORTED: entry(
    400,
    false,
    'The feature needs a newer runtime SDK than the one platform.yaml pins.',
  ),

  // Functions
  FUNCTION_NOT_FOUND: entry(404, false, 'No Function with this name is declared.'),
  FUNCTION_NOT_CALLABLE: entry(
    403,
    false,
    'This Function cannot be called this way (system Functions never from a browser).',
  ),
  FUNCTION_FAILED: entry(500, false, 'The Function failed with an unexpected error.'),
  FUNCTION_TIMEOUT: entry(504, true, 'The Function did not finish in time.'),
  FUNCTION_UNAVAILABLE: entry(503, true, 'The Function could not be started; try again.'),
  FUNCTION_BUNDLE_FAILED: entry(
    500,
    false,
    'The Function could not be bundled: an import breaks the bundling rules or does not resolve.',
  ),
  ROUTE_NOT_FOUND: entry(404, false, 'No route matches this path.'),
  METHOD_NOT_ALLOWED: entry(405, false, 'The route does not accept this HTTP method.'),

  // Context members
  TABLE_NOT_FOUND: entry(404, false, 'The table does not exist or is not reachable through data.'),
  ROW_NOT_FOUND: entry(404, false, 'No row with this id is visible to the caller.'),
  DATA_CONSTRAINT_VIOLATION: entry(409, false, 'The write breaks a constraint of the table.'),
  PERMISSION_DENIED: entry(403, false, 'Row-level security or access rules deny this operation.'),
  FILE_NOT_FOUND: entry(404, false, 'No file with this reference is visible to the caller.'),
  FILE_TOO_LARGE: entry(413, false, 'The file is larger than the platform accepts.'),
  SECRET_NOT_DECLARED: entry(400, false, 'The secret name is not declared in platform.yaml.'),
  SECRET_NOT_SET: entry(404, false, 'The secret is declared but has no value.'),
  EMAIL_ALIAS_NOT_DECLARED: entry(400, false, 'The sender alias is not declared in platform.yaml.'),
  AI_INPUT_INVALID: entry(400, false, 'The AI call input or its attachments break a rule.'),
  QUEUE_NOT_DECLARED: entry(404, false, 'No queue with this name is declared.'),
  JOB_NOT_FOUND: entry(404, false, 'No job with this id exists in this app.'),
  ACTIVE_JOBS_LIMIT: entry(429, true, 'The app already holds the maximum number of active jobs.'),
  JOB_ATTEMPT_LOST: entry(
    500,
    true,
    'The broker running a job attempt stopped before it finished; the attempt counts as used.',
  ),
  APP_NOT_FOUND: entry(404, false, 'No app with this id is served here.'),
  CRON_NOT_DECLARED: entry(404, false, 'No cron schedule with this name is declared.'),
  INTEGRATION_SLOT_NOT_DECLARED: entry(
    404,
    false,
    'No integration slot with this name is declared.',
  ),
  INTEGRATION_EVENT_INVALID: entry(
    400,
    false,
    'The emitted event breaks a rule of the integration contract.',
  ),
  INVOCATION_TOKEN_INVALID: entry(
    401,
    false,
    'The invocation token is missing, expired or not valid for this runtime route.',
  ),
  FEATURE_NOT_AVAILABLE: entry(
    501,
    false,
    'This platform feature is not available on this broker yet.',
  ),

  // Transport (raised on the client side)
  NETWORK_ERROR: entry(0, true, 'The platform could not be reached.'),
  TIMEOUT: entry(0, true, 'The request did not finish within its timeout.'),
  ABORTED: entry(0, false, 'The request was aborted by the caller.'),
  INVALID_RESPONSE: entry(502, true, 'The platform answered with a response the SDK cannot read.'),
  INTERNAL: entry(500, false, 'The platform failed unexpectedly.'),
} as const satisfies Record<string, CatalogEntry>;

/** A code raised by the platform itself (a key of {@link errorCatalog}). */
export type ErrorCode = keyof typeof errorCatalog;

/** True when `code` is one of the platform's own codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalog, code);
}
