/**
 * SDK version arithmetic for the runtime contract: a Function is pinned to a runtime SDK version
 * (`runtime.sdk.version` in platform.yaml) and may only use routes and context members whose
 * `since` is not newer.
 */

/** The members and features of the handler context that arrived after SDK 2.0.0 (spec 9). */
export const featureSince = {
  /** Consumer apps using integration slots (`integrations.use`). */
  integrations: '2.2.0',
  /** The `http` context member (Function routes). */
  http: '2.3.0',
  /** Delegated file read grants on enqueue (`files: { read }`). */
  enqueueFiles: '2.4.0',
  /** `data.search` (paired SDK 2.4 candidate). */
  search: '2.4.0',
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
 * when equal, positive when `a > b`.
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
