import type { ManifestDiagnosticCode } from './codes.ts';

/** A naming rule: its regular expression, the diagnostic code when broken, and a fix hint. */
export interface NamingRule {
  /** The expression a valid value matches. */
  readonly pattern: RegExp;
  /** The code reported when a value does not match. */
  readonly code: ManifestDiagnosticCode;
  /** Completes "must ...": what a valid value looks like. */
  readonly hint: string;
}

const rule = (pattern: RegExp, code: ManifestDiagnosticCode, hint: string): NamingRule => ({
  pattern,
  code,
  hint,
});

/**
 * The naming rules of every manifest identifier. The zod schema uses the patterns (so they reach
 * the JSON Schema too) and the issue mapper turns a broken pattern into the rule's own code.
 */
export const namingRules = {
  functionName: rule(
    /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
    'FUNCTION_NAME_INVALID',
    'start with a letter and use only letters, digits, - and _ (at most 64 characters)',
  ),
  queueName: rule(
    /^[a-z][a-z0-9_-]{0,63}$/,
    'QUEUE_NAME_INVALID',
    'start with a lowercase letter and use only a-z, 0-9, - and _ (at most 64 characters)',
  ),
  cronName: rule(
    // Same language as queueName, written differently: issues are matched by pattern source.
    /^[a-z][-a-z0-9_]{0,63}$/,
    'CRON_NAME_INVALID',
    'start with a lowercase letter and use only a-z, 0-9, - and _ (at most 64 characters)',
  ),
  secretName: rule(
    /^[A-Z][A-Z0-9_]{0,127}$/,
    'SECRET_NAME_INVALID',
    'be UPPER_SNAKE_CASE: start with A-Z and use only A-Z, 0-9 and _ (at most 128 characters)',
  ),
  emailAlias: rule(
    /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/,
    'EMAIL_ALIAS_INVALID',
    'be a lowercase mailbox name such as "reminders" (a-z, 0-9, . _ -; at most 64 characters)',
  ),
  sdkVersion: rule(
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/,
    'SDK_VERSION_INVALID',
    'be a semantic version such as 2.6.0',
  ),
  routePath: rule(
    /^\/(?:(?:[A-Za-z0-9._~-]+|:[A-Za-z_][A-Za-z0-9_]*)(?:\/(?:[A-Za-z0-9._~-]+|:[A-Za-z_][A-Za-z0-9_]*))*)?$/,
    'ROUTE_PATH_INVALID',
    'start with / and consist of literal segments (A-Z a-z 0-9 . _ ~ -) or :params, without a trailing /',
  ),
  searchName: rule(
    // Same language as slotName, written differently: issues are matched by pattern source.
    /^[a-z][-a-zA-Z0-9_]{0,63}$/,
    'SEARCH_NAME_INVALID',
    'start with a lowercase letter and use only letters, digits, - and _ (at most 64 characters)',
  ),
  sqlIdentifier: rule(
    /^[a-z_][a-z0-9_]{0,62}$/,
    'SEARCH_COLUMN_INVALID',
    'be a lowercase SQL identifier (a-z, 0-9 and _, at most 63 characters)',
  ),
  realtimeChannel: rule(
    /^[A-Za-z0-9_.:-]{1,127}\*?$|^\*$/,
    'REALTIME_CHANNEL_INVALID',
    'be a channel name of letters, digits and : _ . - (at most 128 characters), optionally ending in * to match every name with that prefix',
  ),
  realtimeTable: rule(
    // Same language as sqlIdentifier, written differently: issues are matched by pattern source.
    /^[_a-z][a-z0-9_]{0,62}$/,
    'REALTIME_TABLE_INVALID',
    'be a lowercase table name of the public schema (a-z, 0-9 and _, at most 63 characters)',
  ),
  integrationName: rule(
    /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/,
    'INTEGRATION_NAME_INVALID',
    'be lowercase kebab-case such as "acme-crm"',
  ),
  capabilityName: rule(
    /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/,
    'INTEGRATION_CAPABILITY_INVALID',
    'be lowercase words joined by . - or _ such as "contacts.read"',
  ),
  operationName: rule(
    /^[a-z][a-zA-Z0-9]*(?:\.[a-z][a-zA-Z0-9]*)+$/,
    'INTEGRATION_OPERATION_NAME_INVALID',
    'be dotted camelCase with at least two parts, such as "contacts.findByEmail"',
  ),
  eventType: rule(
    /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/,
    'INTEGRATION_EVENT_TYPE_INVALID',
    'be dotted lowercase with at least two parts, such as "contact.created"',
  ),
  slotName: rule(
    /^[a-z][a-zA-Z0-9_-]{0,63}$/,
    'SLOT_NAME_INVALID',
    'start with a lowercase letter and use only letters, digits, - and _ (at most 64 characters)',
  ),
} as const satisfies Record<string, NamingRule>;

// zod reports a broken pattern as `String(regex)`, so each rule needs a distinct source.
const byPattern = new Map<string, NamingRule>();
for (const r of Object.values(namingRules)) {
  if (byPattern.has(String(r.pattern))) throw new Error(`Duplicate naming pattern ${r.pattern}`);
  byPattern.set(String(r.pattern), r);
}

/** Finds the naming rule whose pattern zod reports (as `String(regex)`) in an issue. */
export function namingRuleForPattern(pattern: string | undefined): NamingRule | undefined {
  return pattern === undefined ? undefined : byPattern.get(pattern);
}
