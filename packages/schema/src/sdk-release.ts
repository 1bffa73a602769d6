// In source runs (vitest, the CLI under --conditions=@platform/source) the version comes from
// package.json through a JSON import; the build replaces this module with a literal
// (build/version-plugin.ts), so the published bundle carries the version, not package.json.
import pkg from '../package.json' with { type: 'json' };

/**
 * The newest runtime SDK version this package knows: its own version. `@platform/schema` and
 * `@platform/server` are released together at one version (the fixed group of the changeset
 * config), and a release that adds a feature to `featureSince` ships it in both, so a
 * release of the SDK moves this with it. `platform validate` warns about a pin past it.
 *
 * @example
 * ```ts
 * compareVersions(manifest.runtime.sdk.version, latestKnownSdkVersion) > 0; // a newer SDK
 * ```
 */
export const latestKnownSdkVersion: string = pkg.version;
