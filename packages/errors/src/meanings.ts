import type { ErrorCode } from './codes.ts';

/** One line a person can act on, for every platform code (a missing or extra code fails to compile). */
export const errorMeanings = {
  // Spec 7.2
  AUTH_REQUIRED: 'The operation needs a signed-in user and there is none.',
  ACCESS_DENIED: 'The signed-in account has no grant to this private app.',
  ACCOUNT_VERIFICATION_REQUIRED:
    'The app is paused until its owner confirms their email address; retrying does not help until then.',
  IDEMPOTENCY_KEY_REUSED:
    'The idempotency key was already used in this queue with a different payload.',
  QUEUE_NOT_ACTIVE: 'The job was dead-lettered because its queue is no longer declared.',
  JOB_CANCELLED: "The job was cancelled by its app's owner before it ran; it will not run.",
  FILE_INPUT_CHANGED: 'A delegated file was replaced after the grant was made.',
  SEARCH_NOT_DECLARED: 'No search with this name is declared in platform.yaml.',
  SEARCH_INPUT_INVALID: 'The search options break a rule of the declared search.',
  SEARCH_MODEL_MISMATCH: 'The vector model differs from the declared model identity.',
  SEARCH_DIMENSION_MISMATCH: 'The vector length differs from the declared dimensions.',
  SEARCH_RESULT_TOO_LARGE: 'A record or the whole response exceeds the search size limits.',
  SEARCH_UNAVAILABLE: 'Search is temporarily unavailable; try again.',
  INTEGRATION_RECONNECT_REQUIRED: 'The connection must be reconnected before it can be used.',
  INTEGRATION_CONNECTION_REQUIRED: 'The signed-in person has no personal connection for this slot.',
  INTEGRATION_USER_REQUIRED: 'A calling_user slot was used without a signed-in user.',
  INTEGRATION_TEST_CONNECTION_REQUIRED:
    'A development invocation of a provider Function needs a test connection.',
  INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE:
    'OAuth exchange and refresh Functions cannot be invoked in development.',
  INTEGRATION_PROVIDER_FAILED: 'The provider operation failed.',
  INTEGRATION_PROVIDER_UNAVAILABLE: 'The provider is temporarily unavailable; try again.',
  // Requests and input
  INVALID_INPUT: "The input does not match the declared schema or the table's columns.",
  INVALID_REQUEST:
    'The request is malformed (for example, its body is not valid JSON, nests deeper than 64 levels or holds a NUL character).',
  UNSUPPORTED_MEDIA_TYPE: 'The request has a content type this route does not accept.',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the route accepts.',
  LIMIT_EXCEEDED: 'A value is outside a documented platform limit.',
  RATE_LIMITED: 'Too many attempts; wait and try again.',
  SDK_VERSION_UNSUPPORTED: 'The feature needs a newer runtime SDK than the one platform.yaml pins.',
  HOST_NOT_ALLOWED:
    'The request names a host this server does not answer to (it only serves its own names).',
  // Functions
  FUNCTION_NOT_FOUND: 'No Function with this name is declared.',
  FUNCTION_NOT_CALLABLE:
    'This Function cannot be called this way (system Functions never from a browser).',
  FUNCTION_FAILED: 'The Function failed with an unexpected error.',
  FUNCTION_TIMEOUT: 'The Function did not finish in time.',
  FUNCTION_UNAVAILABLE: 'The Function could not be started or is being restarted; try again.',
  FUNCTION_BUNDLE_FAILED:
    'The Function could not be bundled: an import breaks the bundling rules or does not resolve.',
  ROUTE_NOT_FOUND: 'No route matches this path.',
  ROUTE_MOVED: 'The route moved; details.location names its new path.',
  METHOD_NOT_ALLOWED: 'The route does not accept this HTTP method.',
  // Context members
  TABLE_NOT_FOUND: 'The table does not exist or is not reachable through data.',
  ROW_NOT_FOUND: 'No row with this id is visible to the caller.',
  DATA_CONSTRAINT_VIOLATION: 'The write breaks a constraint of the table.',
  PERMISSION_DENIED: 'Row-level security or access rules deny this operation.',
  RPC_NOT_FOUND:
    'No database function with this name (and these argument names) is in the public schema.',
  RPC_FAILED: 'The database function raised an error; its message says why.',
  FILE_NOT_FOUND: 'No file with this reference is visible to the caller.',
  FILE_TOO_LARGE: 'The file is larger than the platform accepts.',
  STORAGE_UNAVAILABLE:
    "The file storage cannot be used now: the disk is full, failing or read-only, or the object storage does not answer or refuses (`details.reason`: the system's code or the storage's error name). A write was not kept; try again later.",
  DATABASE_UNAVAILABLE:
    'The database server could not be reached for a moment (it is restarting or failing over); try again shortly.',
  SECRET_NOT_DECLARED: 'The secret name is not declared in platform.yaml.',
  SECRET_NOT_SET: 'The secret is declared but has no value.',
  EMAIL_ALIAS_NOT_DECLARED: 'The sender alias is not declared in platform.yaml.',
  EMAIL_INBOUND_NOT_DECLARED: 'platform.yaml declares no inbound email Function.',
  EMAIL_RECIPIENT_UNKNOWN: 'The recipient is not an inbound address of this app.',
  EMAIL_MESSAGE_TOO_LARGE: 'The message, or its attachments, exceed the inbound email limits.',
  EMAIL_MESSAGE_INVALID: 'The message is not a readable email (RFC 5322 headers and MIME body).',
  EMAIL_HANDLER_FAILED:
    'The inbound email Function failed; the message was not taken and may be sent again.',
  EMAIL_NOT_FOUND: 'No captured email with this id is in the app’s outbox.',
  NOTIFICATION_TOO_LARGE:
    'The encoded notification is larger than a Web Push message can carry; shorten it.',
  PUSH_SUBSCRIPTION_INVALID:
    'The push subscription is malformed: its endpoint or its p256dh/auth keys break a rule.',
  PUSH_PERMISSION_DENIED:
    'The user did not allow notifications for this site; they can allow them in site settings.',
  REALTIME_CHANNEL_NOT_DECLARED:
    'No realtime.channels pattern of platform.yaml matches the channel name; declare it first.',
  REALTIME_TABLE_NOT_DECLARED:
    'The table is not listed in realtime.tables of platform.yaml, so its changes are not captured.',
  REALTIME_MESSAGE_TOO_LARGE:
    'The realtime message is larger than limits.realtime.messageMaxBytes; send less or a reference.',
  REALTIME_TOO_MANY_CHANNELS:
    'The connection already has limits.realtime.channelsPerConnection channels and table subscriptions.',
  REALTIME_TOO_MANY_CONNECTIONS:
    'The user already holds limits.realtime.connectionsPerUser realtime connections to this app.',
  REALTIME_RATE_LIMITED:
    'The connection sent more than limits.realtime.messagesPerSecond messages in one second; slow down.',
  PUSH_SERVICE_UNAVAILABLE:
    'No push service accepted the notification (down, or busy after retries); try again.',
  AI_INPUT_INVALID: 'The AI call input or its attachments break a rule.',
  AI_PROVIDER_FAILED: 'The AI provider refused or failed the call; sending it again will not help.',
  AI_PROVIDER_UNAVAILABLE: 'The AI provider timed out, was rate limited or was down; retry later.',
  AI_OUTPUT_INVALID:
    'The AI provider answered with output that is not valid for the call; a retry may help.',
  QUEUE_NOT_DECLARED: 'No queue with this name is declared.',
  JOB_NOT_FOUND: 'No job with this id exists in this app.',
  ACTIVE_JOBS_LIMIT: 'The app already holds the maximum number of active jobs.',
  JOB_ATTEMPT_LOST:
    'The broker running a job attempt stopped before it finished; the attempt counts as used.',
  APP_NOT_FOUND: 'No app with this id is served here.',
  APP_RESTARTING: 'The app is starting a new version; try again in a moment.',
  ROLE_CHANGE_FORBIDDEN: "Only an organisation's administrators change its members' roles.",
  LAST_ADMINISTRATOR:
    "The organisation's only administrator must first make another member administrator.",
  MEMBER_NOT_FOUND: 'No member of the organisation has this address.',
  INVITATION_NOT_FOUND: 'No live invitation to join the organisation is waiting for this address.',
  CRON_NOT_DECLARED: 'No cron schedule with this name is declared.',
  INTEGRATION_SLOT_NOT_DECLARED: 'No integration slot with this name is declared.',
  INTEGRATION_EVENT_INVALID: 'The emitted event breaks a rule of the integration contract.',
  INTEGRATION_NOT_FOUND: 'No app of the organisation publishes an integration with this name.',
  INTEGRATION_OPERATION_NOT_FOUND: "The integration's contract has no operation with this name.",
  INTEGRATION_CAPABILITY_NOT_GRANTED:
    "The operation's capability is not granted to the slot by its declaration and binding.",
  INTEGRATION_BINDING_REQUIRED:
    'The slot has no usable binding: none was made, or it was suspended or revoked.',
  INTEGRATION_CONNECTION_NOT_FOUND: 'No connection with this id exists in the organisation.',
  INTEGRATION_EVENT_DELIVERY_NOT_FOUND:
    'No event delivery with this id was recorded for the app, or its record has expired.',
  INVOCATION_TOKEN_INVALID:
    'The invocation token is missing, expired or not valid for this runtime route.',
  FEATURE_NOT_AVAILABLE: 'This platform feature is not available on this broker yet.',
  BACKUP_NOT_FOUND: 'No backup of this app with this id exists (it may have expired).',
  APP_RESTORING: "The app's database is being restored from a backup; try again in a moment.",
  RECENT_SIGN_IN_REQUIRED:
    'This action needs a recent sign-in (`limits.recentSignInSeconds`); sign in again.',
  ACCOUNT_DELETION_IN_PROGRESS: 'The account is already being deleted.',
  ACCOUNT_OWNS_APPS:
    'The account owns apps that other members use and that nobody can take over when it is deleted (the configured owner of a broker started alone); make someone else the owner first.',
  APP_DELETED: "The app was deleted with its owner's account.",
  ONBOARDING_REQUEST_NOT_FOUND: 'No onboarding request has this id, or its claim secret is wrong.',
  ONBOARDING_REQUEST_EXPIRED:
    'The onboarding request was finished already, or not confirmed within 24 hours.',
  APP_ID_TAKEN:
    "Another app, or another person's onboarding request, has this app id already; choose another.",
  TOKEN_REQUEST_NOT_FOUND: 'No credential request has this id, or its claim secret is wrong.',
  TOKEN_REQUEST_DENIED: 'The owner declined the credential request.',
  TOKEN_REQUEST_EXPIRED:
    'The credential request was not approved and claimed in time; make a new one.',
  DOMAIN_TAKEN: 'Another app on this service has this custom domain already.',
  DOMAIN_NOT_VERIFIED:
    'The custom domain did not answer its verification token at its well-known path; serve it and verify again.',
  // Transport (raised on the client side)
  NETWORK_ERROR: 'The platform could not be reached.',
  TIMEOUT: 'The request did not finish within its timeout.',
  ABORTED: 'The request was aborted by the caller.',
  INVALID_RESPONSE: 'The platform answered with a response the SDK cannot read.',
  INTERNAL: 'The platform failed unexpectedly.',
  CREDENTIAL_STORE_UNAVAILABLE:
    "The operating system's protected credential store cannot be reached; nothing was stored.",
} as const satisfies Record<ErrorCode, string>;
