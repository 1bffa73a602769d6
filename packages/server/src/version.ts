// In source runs (vitest, Deno) the version is read from package.json through a JSON import;
// the build replaces the package.json import with a literal (see build/version-plugin.ts), so the
// published bundle carries only the version string, never the rest of package.json.
import pkg from '../package.json' with { type: 'json' };

// The broker bundles each Function with this global defined as the `runtime.sdk.version` that
// platform.yaml pins (esbuild `define`), because one SDK copy serves every older pin of its
// major version and the Function must report its pin, not the copy's version (spec 9).
const pinned = (globalThis as { __PLATFORM_PINNED_SDK_VERSION__?: unknown })
  .__PLATFORM_PINNED_SDK_VERSION__;

/**
 * The runtime SDK version this Function is pinned to (`runtime.sdk.version` of platform.yaml),
 * which is the runtime contract version. In a Function served by the broker it is the pinned
 * version; imported anywhere else it is the version of the installed `@platform/server`. Return
 * it from a Function to report the pinned SDK version instead of hard-coding a string (spec 9).
 *
 * @example
 * ```ts
 * export default defineFunction({
 *   input: s.object({}),
 *   handler: () => ({ sdk: PLATFORM_SDK_VERSION }),
 * });
 * ```
 */
export const PLATFORM_SDK_VERSION: string = typeof pinned === 'string' ? pinned : pkg.version;
