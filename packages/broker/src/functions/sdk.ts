import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PlatformError } from '@platform/errors';

/** Where the `@platform/server` a Function imports comes from. */
export interface SdkSource {
  /** Folder imports of `@platform/server` are resolved from. */
  readonly resolveDir: string;
  /** Version of that copy (its package.json). */
  readonly version: string;
  /** `broker` for the copy shipped with the broker, `app` for the app's own `node_modules`. */
  readonly origin: 'broker' | 'app';
  /**
   * `runtime.sdk.version` the app pins. The bundle's `PLATFORM_SDK_VERSION` reports it (spec 9),
   * since one copy serves every older pin of its major version. Absent: the copy's own version.
   */
  readonly pinned?: string;
}

const require = createRequire(import.meta.url);

function versionAt(packageJson: string): string {
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

/** The broker's own copy of `@platform/server`. */
export function brokerSdk(): SdkSource {
  const packageJson = require.resolve('@platform/server/package.json');
  // Resolving from the broker's package makes esbuild walk up to the node_modules holding it.
  return {
    resolveDir: dirname(require.resolve('@platform/broker/package.json')),
    version: versionAt(packageJson),
    origin: 'broker',
  };
}

/** `major.minor.patch` and the pre-release suffix (`''` for a release) of a version. */
const parse = (version: string): { core: number[]; pre: string } | undefined => {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(version);
  return match ? { core: match.slice(1, 4).map(Number), pre: match[4] ?? '' } : undefined;
};

/**
 * Whether a copy at `have` serves a pin `want`: the same major, and `want` no newer. Of one
 * `major.minor.patch`, a pre-release serves only itself (a snapshot release pins exactly what it
 * published) and the release serves its pre-releases.
 */
function serves(want: ReturnType<typeof parse>, have: ReturnType<typeof parse>): boolean {
  if (want === undefined || have === undefined) return false;
  const [wMajor, wMinor, wPatch] = want.core as [number, number, number];
  const [hMajor, hMinor, hPatch] = have.core as [number, number, number];
  if (wMajor !== hMajor) return false;
  if (wMinor !== hMinor) return wMinor < hMinor;
  if (wPatch !== hPatch) return wPatch < hPatch;
  return have.pre === '' || want.pre === have.pre;
}

/**
 * Which SDK copy serves an app pinned to `pinned` (`runtime.sdk.version`): the app's own
 * installed `@platform/server` when there is one, else the broker's copy. One copy serves every
 * pin of its major version up to its own version, because the SDK gates each feature on the
 * pinned version it receives with every invocation; a newer pin, or another major, is refused.
 */
export function resolveSdk(
  appDir: string,
  pinned: string,
  broker: SdkSource = brokerSdk(),
): SdkSource {
  const own = join(appDir, 'node_modules', '@platform', 'server', 'package.json');
  const source: SdkSource = existsSync(own)
    ? { resolveDir: appDir, version: versionAt(own), origin: 'app' }
    : broker;
  const want = parse(pinned);
  const have = parse(source.version);
  if (!serves(want, have)) {
    const where = source.origin === 'app' ? "the app's node_modules" : 'this broker';
    throw new PlatformError({
      code: 'SDK_VERSION_UNSUPPORTED',
      message: `platform.yaml pins runtime SDK ${pinned}, but ${where} has @platform/server ${source.version} (it serves ${have?.core[0] ?? '?'}.0.0 to ${source.version}). Upgrade the broker or pin a version it has.`,
      details: { pinned, available: source.version },
    });
  }
  return { ...source, pinned };
}
