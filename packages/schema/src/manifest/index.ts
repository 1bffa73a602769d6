/**
 * `@platform/schema/manifest`: the `platform.yaml` schema, its parser and validator, the stable
 * diagnostic codes, and the JSON Schema for editors.
 *
 * @example
 * ```ts
 * import { checkManifest, formatDiagnostic } from '@platform/schema/manifest';
 * const { errors, warnings } = await checkManifest(text, { appDir: '.', host });
 * for (const d of [...errors, ...warnings]) console.log(formatDiagnostic(d));
 * ```
 *
 * @packageDocumentation
 */
export {
  type DiagnosticCodeEntry,
  type ManifestDiagnosticCode,
  manifestDiagnosticCodes,
  type Severity,
} from './codes.ts';
export type { OrganisationApp, ValidateManifestOptions } from './context.ts';
export { cronScheduleProblem, isTimeZone } from './cron-expression.ts';
export {
  type Diagnostic,
  formatDiagnostic,
  formatManifestPath,
  formatPath,
  type ManifestResult,
  type PathSegment,
} from './diagnostic.ts';
export { latestKnownSdkVersion, schemaVersion3Features, sdkFeatures } from './features.ts';
export type { FileHost } from './host.ts';
export { findImports, type ImportSite } from './import-scanner.ts';
export { manifestJsonSchema, manifestJsonSchemaId } from './json-schema.ts';
export {
  type CronDeclaration,
  type FunctionDeclaration,
  type IntegrationContract,
  type Manifest,
  type ManifestInput,
  manifestSchema,
  maxVectorDimensions,
  type QueueDeclaration,
  type RealtimeDeclaration,
  type RouteDeclaration,
  realtimeJoinLevels,
  realtimeSendLevels,
  routeMethods,
  type SearchDeclaration,
  type SlotDeclaration,
  searchLanguages,
} from './manifest-schema.ts';
export { jsonSchemaProblem } from './output-check.ts';
export { type ParseManifestOptions, parseManifest } from './parse.ts';
export { type NamingRule, namingRules } from './patterns.ts';
export { reservedSecretPrefix } from './rules/names.ts';
export { reservedRoutePrefixes } from './rules/routes.ts';
export { type CheckManifestOptions, checkManifest, validateManifest } from './validate.ts';
