/**
 * `@platform/schema`: the input schema helpers `s.*` that Functions declare their input with,
 * the platform limits table, and (on subpaths) the `platform.yaml` manifest and the runtime
 * contract.
 *
 * @packageDocumentation
 */
export { isEmailAddress, isOneLine } from './email-address.ts';
export {
  type InboundEmail,
  type InboundEmailFields,
  inboundEmailPayload,
  inboundEmailSchema,
} from './inbound-email.ts';
export { findJsonInputProblem, type JsonInputProblem } from './json-input.ts';
export { jsonByteLength, limits } from './limits.ts';
export {
  type ArrayOptions,
  type LiteralValue,
  type NumberOptions,
  type ObjectOutput,
  type Shape,
  type StringOptions,
  s,
} from './schema/helpers.ts';
export { formatInputPath, formatPath, type InputIssue } from './schema/issues.ts';
export { type JSONSchema, toJSONSchema } from './schema/json-schema.ts';
export {
  type Infer,
  isSchema,
  type SafeParseResult,
  type Schema,
  type SchemaKind,
} from './schema/schema.ts';
export type { StandardSchemaV1 } from './schema/standard-schema.ts';
export { type WebhookForward, webhookForwardSchema } from './webhook-forward.ts';
