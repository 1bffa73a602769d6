// In source runs (vitest, Deno) the version is read from package.json through a JSON import;
// the build replaces this whole module with a literal (see build/version-plugin.ts), so the
// published bundle carries only the version string, never the rest of package.json.
import pkg from '../package.json' with { type: 'json' };

/**
 * The version of `@platform/server`, which is the runtime contract version. Generated from
 * package.json at build time; return it from a Function to report the pinned SDK version
 * instead of hard-coding a string (spec 9).
 *
 * @example
 * ```ts
 * export default defineFunction({
 *   input: s.object({}),
 *   handler: () => ({ sdk: PLATFORM_SDK_VERSION }),
 * });
 * ```
 */
export const PLATFORM_SDK_VERSION: string = pkg.version;
