import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageJson = fileURLToPath(new URL('../package.json', import.meta.url));

/** The module text that replaces src/sdk-release.ts in the build. */
export function sdkReleaseModule(): string {
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return `export const latestKnownSdkVersion = ${JSON.stringify(version)};\n`;
}

/**
 * An esbuild plugin that generates src/sdk-release.ts from package.json at build time, so the
 * bundle holds the newest known SDK version as a literal.
 */
export const sdkReleasePlugin = {
  name: 'platform-schema-sdk-release',
  setup(build: {
    onLoad(
      options: { filter: RegExp },
      callback: (args: { path: string }) => { contents: string; loader: 'ts' } | undefined,
    ): void;
  }) {
    build.onLoad({ filter: /[\\/]src[\\/]sdk-release\.ts$/ }, () => ({
      contents: sdkReleaseModule(),
      loader: 'ts',
    }));
  },
};
