import { featureSince } from '../sdk-versions.ts';

/**
 * The runtime SDK version each gated feature needs, under the names this module used before the
 * versions moved to one table.
 *
 * @deprecated Read `featureSince` of `@platform/schema/contract`, the one table of features and
 * versions that the manifest rules and the runtime read. This view only renames its entries
 * (`integrationSlots` is `integrations`, `httpContext` is `http`, `fileGrants` is
 * `enqueueFiles`, `integrationContext` is `integration`).
 *
 * @example
 * ```ts
 * sdkFeatures.routes; // '2.3.0'
 * ```
 */
export const sdkFeatures = {
  integrationSlots: featureSince.integrations,
  routes: featureSince.routes,
  httpContext: featureSince.http,
  fileGrants: featureSince.enqueueFiles,
  search: featureSince.search,
  sync: featureSince.sync,
  webhooks: featureSince.webhooks,
  events: featureSince.events,
  integrationContext: featureSince.integration,
} as const;

/** Manifest features that need `schemaVersion: 3`. */
export const schemaVersion3Features = [
  'Function routes',
  'provides.integration',
  'integration slots',
] as const;

export { latestKnownSdkVersion } from '../sdk-release.ts';
