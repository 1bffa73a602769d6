import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageJson = fileURLToPath(new URL('../package.json', import.meta.url));

/** The module text that replaces src/version.ts in the build. */
export function versionModule(): string {
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  // Keeps the pinned-version global of src/version.ts, which the broker defines when it bundles.
  return [
    'const pinned = globalThis.__PLATFORM_PINNED_SDK_VERSION__;',
    `export const PLATFORM_SDK_VERSION = typeof pinned === 'string' ? pinned : ${JSON.stringify(version)};`,
    '',
  ].join('\n');
}

/**
 * An esbuild plugin that generates src/version.ts from package.json at build time, so the
 * bundle holds the version as a literal.
 */
export const versionPlugin = {
  name: 'platform-sdk-version',
  setup(build: {
    onLoad(
      options: { filter: RegExp },
      callback: (args: { path: string }) => { contents: string; loader: 'ts' } | undefined,
    ): void;
  }) {
    build.onLoad({ filter: /[\\/]src[\\/]version\.ts$/ }, () => ({
      contents: versionModule(),
      loader: 'ts',
    }));
  },
};
