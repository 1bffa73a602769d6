/**
 * The runtime SDK version each gated feature needs (spec section 9). `platform validate` checks
 * the ones a manifest declares; the others (`httpContext`, `fileGrants`, `integrationContext`)
 * are call-time features the runtime checks.
 *
 * @example
 * ```ts
 * sdkFeatures.routes; // '2.3.0'
 * ```
 */
export const sdkFeatures = {
  /** Consumer apps using integration slots. */
  integrationSlots: '2.2.0',
  /** Function routes. */
  routes: '2.3.0',
  /** The `http` context member. */
  httpContext: '2.3.0',
  /** Delegated file read grants on enqueue. */
  fileGrants: '2.4.0',
  /** `data.search` (the paired SDK 2.4 candidate). */
  search: '2.4.0',
  /** Integration sync. */
  sync: '2.6.0',
  /** Integration webhooks. */
  webhooks: '2.6.0',
  /** Integration events (publishing and subscribing). */
  events: '2.6.0',
  /** The `integration` context member. */
  integrationContext: '2.6.0',
} as const;

/** Manifest features that need `schemaVersion: 3`. */
export const schemaVersion3Features = [
  'Function routes',
  'provides.integration',
  'integration slots',
] as const;

/** The newest runtime SDK version this validator knows. */
export const latestKnownSdkVersion = '2.6.0';
