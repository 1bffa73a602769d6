/**
 * Runtime SDK versions: which version introduced each gated feature, and how versions compare.
 * A Function is pinned to a runtime SDK version (`runtime.sdk.version` in platform.yaml) and may
 * only use routes, context members and manifest features whose version is not newer. This is
 * the one table of them: the manifest rules (`platform validate`), the runtime contract's route
 * table and the server SDK's call-time checks all read it. Free of schema code, like
 * `routes.ts`, so the browser SDK's route table can import it.
 */

/**
 * The features of the manifest and the handler context that arrived after SDK 2.0.0, with the
 * version that introduced each (spec 9). Everything not listed is in 2.0.0.
 *
 * @example
 * ```ts
 * featureSince.search; // '2.4.0'
 * ```
 */
export const featureSince = {
  /** Integration slots: `integrations` in platform.yaml and `ctx.integrations.use`. */
  integrations: '2.2.0',
  /** Function routes (`functions[].route` in platform.yaml). */
  routes: '2.3.0',
  /** The `http` context member (Function routes). */
  http: '2.3.0',
  /** Delegated file read grants on enqueue (`files: { read }`). */
  enqueueFiles: '2.4.0',
  /** `data.search` (paired SDK 2.4 candidate), in platform.yaml and in the context. */
  search: '2.4.0',
  /** Integration sync (`provides.integration.sync`). */
  sync: '2.6.0',
  /** Per-connection integration webhooks (`provides.integration.webhook`). */
  webhooks: '2.6.0',
  /** Integration events: publishing (`provides.integration.events`) and slot subscriptions. */
  events: '2.6.0',
  /** The `integration` context member and `integration.emit`. */
  integration: '2.6.0',
  /** `details.connectUrl` on `INTEGRATION_CONNECTION_REQUIRED` inside Functions. */
  connectUrlOnErrors: '2.6.0',
} as const;

/** A feature of {@link featureSince}. */
export type Feature = keyof typeof featureSince;

const VERSION = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** True for a `major.minor.patch` version (a pre-release or build suffix is allowed). */
export function isSdkVersion(value: unknown): value is string {
  return typeof value === 'string' && VERSION.test(value);
}

/**
 * Compares two versions by `major.minor.patch` (suffixes ignored): negative when `a < b`, zero
 * when equal, positive when `a > b`. Throws a `TypeError` for a string that is not a version.
 *
 * @example
 * ```ts
 * compareVersions('2.3.0', '2.6.0'); // < 0
 * ```
 */
export function compareVersions(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < 3; i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** True when a Function pinned to `pinned` may use something introduced in `since`. */
export function supports(pinned: string, since: string): boolean {
  return compareVersions(pinned, since) >= 0;
}

function parts(version: string): number[] {
  const match = VERSION.exec(version);
  if (!match) throw new TypeError(`Not an SDK version: ${JSON.stringify(version)}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}
