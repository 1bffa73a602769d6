/** Whether a diagnostic blocks deployment (`error`) or only deserves attention (`warning`). */
export type Severity = 'error' | 'warning';

/** One entry of the manifest diagnostic catalog. */
export interface DiagnosticCodeEntry {
  /** The severity every diagnostic with this code has. */
  readonly severity: Severity;
  /** One line saying what the code means; the diagnostic's own message says how to fix it. */
  readonly meaning: string;
}

const error = (meaning: string): DiagnosticCodeEntry => ({ severity: 'error', meaning });
const warning = (meaning: string): DiagnosticCodeEntry => ({ severity: 'warning', meaning });

/**
 * Every diagnostic code `platform validate` can report, with its severity. Codes are stable
 * UPPER_SNAKE identifiers: tools may match on them, so a code is never renamed or reused.
 *
 * @example
 * ```ts
 * import { manifestDiagnosticCodes } from '@platform/schema/manifest';
 * manifestDiagnosticCodes.QUEUE_CONSUMER_NOT_SYSTEM.severity; // 'error'
 * ```
 */
export const manifestDiagnosticCodes = {
  // The file itself
  MANIFEST_NOT_FOUND: error('The app directory has no platform.yaml.'),
  MANIFEST_EMPTY: error('platform.yaml is empty.'),
  YAML_SYNTAX_ERROR: error('platform.yaml is not well-formed YAML.'),
  YAML_DUPLICATE_KEY: error('A mapping in platform.yaml repeats a key.'),

  // Structure (from the zod schema)
  UNKNOWN_FIELD: error('A field that the manifest schema does not define.'),
  REQUIRED_FIELD_MISSING: error('A required field is absent.'),
  INVALID_TYPE: error('A field has the wrong type (for example a string where a number belongs).'),
  INVALID_VALUE: error(
    'A field has a value outside its allowed set, or breaks another structural rule.',
  ),
  VALUE_TOO_SMALL: error('A number is below its minimum, or a list or string is too short.'),
  VALUE_TOO_LARGE: error('A number is above its maximum, or a list or string is too long.'),

  // Versions (spec section 9)
  SCHEMA_VERSION_UNSUPPORTED: error('schemaVersion is not 1, 2 or 3.'),
  SCHEMA_VERSION_TOO_OLD: error('A feature needs manifest schemaVersion 3.'),
  SDK_VERSION_INVALID: error('runtime.sdk.version is not a semantic version such as 2.6.0.'),
  SDK_VERSION_TOO_OLD: error('A feature needs a newer runtime SDK than runtime.sdk.version pins.'),
  SDK_VERSION_UNKNOWN: warning('runtime.sdk.version is newer than this validator knows.'),

  // Realtime (docs/realtime.md)
  REALTIME_CHANNEL_INVALID: error(
    'A realtime.channels key is not a channel name or a name prefix ending in *.',
  ),
  REALTIME_TABLE_INVALID: error('A realtime.tables entry is not a lowercase table name.'),

  // App
  VISIBILITY_INVALID: error('visibility is neither public nor private.'),

  // Functions and routes (spec 2.3, 4.1)
  FUNCTION_NAME_INVALID: error('A Function name has characters outside [A-Za-z0-9_-].'),
  FUNCTION_NAME_DUPLICATE: error('Two Functions have the same name.'),
  FUNCTION_ACCESS_INVALID: error('A Function access is not user, public or system.'),
  FUNCTION_ENTRYPOINT_INVALID: error(
    'An entrypoint is not a relative .ts/.tsx path inside the app.',
  ),
  FUNCTION_ENTRYPOINT_MISSING: error('An entrypoint file does not exist.'),
  FUNCTION_NOT_DECLARED: error('A reference names a Function that functions[] does not declare.'),
  ROUTE_PATH_INVALID: error('A route path is not a valid pattern.'),
  ROUTE_METHOD_INVALID: error('A route method is not GET, HEAD, POST, PUT, PATCH or DELETE.'),
  ROUTE_METHOD_DUPLICATE: error('A route lists the same method twice.'),
  ROUTE_PATH_RESERVED: error('A route path is under a prefix the platform reserves.'),
  ROUTE_PARAM_DUPLICATE: error('A route path uses the same :param name twice.'),
  ROUTE_DUPLICATE: error('Two routes have the same method and the same path pattern.'),
  ROUTE_OVERLAP: error('Two routes with a common method can match the same URL path.'),
  ROUTE_ON_SYSTEM_FUNCTION: error('A system Function declares a route; callers cannot reach it.'),

  // Bundling rules (spec 2.3)
  IMPORT_OUTSIDE_FUNCTION_DIR: error("A relative import leaves the entrypoint's directory."),
  IMPORT_FILE_MISSING: error('A relative import names a file that does not exist.'),
  IMPORT_EXTENSION_MISSING: error('A relative import omits the file extension.'),

  // Queues (spec 2.7)
  QUEUE_NAME_INVALID: error('A queue name is not lowercase letters, digits, - and _.'),
  QUEUE_NAME_DUPLICATE: error('Two queues have the same name.'),
  QUEUE_CONSUMER_NOT_SYSTEM: error('A queue consumer is not a system Function.'),

  // Cron (spec 2.8)
  CRON_NAME_INVALID: error('A cron name is not lowercase letters, digits, - and _.'),
  CRON_NAME_DUPLICATE: error('Two cron schedules have the same name.'),
  CRON_SCHEDULE_INVALID: error('A schedule is not a valid five-field cron expression.'),
  CRON_FUNCTION_NOT_SYSTEM: error('A cron Function is not a system Function.'),
  TIMEZONE_INVALID: error('A timezone is not an IANA time zone name.'),

  // Secrets and email
  SECRET_NAME_INVALID: error('A secret name is not UPPER_SNAKE_CASE.'),
  SECRET_NAME_RESERVED: error('A secret name starts with the reserved PLATFORM_ prefix.'),
  SECRET_NAME_DUPLICATE: error('A secret is declared twice.'),
  EMAIL_ALIAS_INVALID: error('An email alias is not a valid mailbox local part.'),
  EMAIL_ALIAS_DUPLICATE: error('An email alias is declared twice.'),
  EMAIL_INBOUND_FUNCTION_NOT_SYSTEM: error('The inbound email Function is not a system Function.'),

  // Search (spec 2.5)
  SEARCH_NAME_INVALID: error('A search name is not a valid identifier.'),
  SEARCH_NAME_DUPLICATE: error('Two searches have the same name.'),
  SEARCH_COLUMN_INVALID: error('A table or column name is not a lowercase SQL identifier.'),
  SEARCH_COLUMN_DUPLICATE: error('A column is listed twice in the same list.'),
  SEARCH_MODE_MISSING: error('A search declares neither fullText nor vector.'),
  SEARCH_FILTER_IS_VECTOR: error('The vector column is declared as a scalar equality filter.'),
  SEARCH_VECTOR_COLUMN_SELECTED: warning('The vector column is selected into every hit record.'),
  SEARCH_LANGUAGE_INVALID: error(
    'A full-text language is not a PostgreSQL text search configuration.',
  ),

  // Integration contract (spec 2.9, 2.10)
  INTEGRATION_NAME_INVALID: error('An integration name is not lowercase kebab-case.'),
  INTEGRATION_TOO_MANY_CREDENTIALS: error('An integration declares more than 20 credentials.'),
  INTEGRATION_CREDENTIAL_DUPLICATE: error('Two credentials have the same name.'),
  INTEGRATION_CREDENTIAL_SHADOWS_SECRET: error(
    "A credential has the name of one of the app's secrets.",
  ),
  INTEGRATION_CAPABILITY_INVALID: error(
    'A capability name is not lowercase words joined by . - or _.',
  ),
  INTEGRATION_CAPABILITY_DUPLICATE: error('Two capabilities have the same name.'),
  INTEGRATION_CAPABILITY_UNDECLARED: error('An operation or event names an undeclared capability.'),
  INTEGRATION_OPERATION_NAME_INVALID: error('An operation name is not dotted camelCase.'),
  INTEGRATION_OPERATION_DUPLICATE: error('Two operations have the same name.'),
  INTEGRATION_FAKE_TOO_LARGE: error('An operation fake output is larger than 16 KiB.'),
  INTEGRATION_EVENT_TYPE_INVALID: error('An event type is not dotted lowercase.'),
  INTEGRATION_EVENT_DUPLICATE: error('Two events have the same type.'),
  INTEGRATION_EVENT_FAKE_TOO_LARGE: error(
    'An event fake payload is larger than the 64 KiB event data limit.',
  ),
  INTEGRATION_FUNCTION_NOT_SYSTEM: error(
    'An operation, sync, webhook or OAuth Function is not system.',
  ),
  INTEGRATION_OAUTH_TYPE_UNSUPPORTED: error(
    'authorization.type is not oauth2 (authorization code).',
  ),
  INTEGRATION_OAUTH_URL_INVALID: error('authorizationUrl is not an https URL.'),
  INTEGRATION_ACCESS_TOKEN_NAME_CLASH: error(
    'The OAuth accessToken name equals a credential or secret.',
  ),

  // Integration slots (spec 2.11)
  SLOT_NAME_INVALID: error('A slot name is not a valid identifier.'),
  SLOT_PROVIDER_UNSUPPORTED: error('A slot provider is not custom.'),
  SLOT_ACCOUNT_INVALID: error('A slot account is not app or calling_user.'),
  SLOT_CARDINALITY_UNSUPPORTED: error('A slot cardinality is not one.'),
  SLOT_CAPABILITY_DUPLICATE: error('A slot requests the same capability twice.'),
  SLOT_EVENTS_REQUIRE_APP_ACCOUNT: error('A calling_user slot subscribes to events.'),
  SLOT_EVENTS_FUNCTION_NOT_SYSTEM: error('A slot event handler is not a system Function.'),

  // Organisation (spec 2.9, 7.2)
  INTEGRATION_NAME_TAKEN: error(
    'Another active app of the organisation publishes this integration name.',
  ),
  INTEGRATION_NOT_PUBLISHED: warning(
    'No active app of the organisation publishes the integration.',
  ),
  INTEGRATION_CAPABILITY_NOT_OFFERED: warning(
    'The published integration does not offer the capability.',
  ),
  INTEGRATION_EVENT_NOT_OFFERED: warning(
    'The published integration does not declare the event type.',
  ),
} as const satisfies Record<string, DiagnosticCodeEntry>;

/** A stable diagnostic code of the manifest validator. */
export type ManifestDiagnosticCode = keyof typeof manifestDiagnosticCodes;
