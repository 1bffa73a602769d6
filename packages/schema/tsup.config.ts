import { defineConfig } from 'tsup';
import { sdkReleasePlugin } from './build/version-plugin.ts';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    routes: 'src/routes.ts',
    'manifest/index': 'src/manifest/index.ts',
    'contract/index': 'src/contract/index.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'es2023',
  sourcemap: true,
  // latestKnownSdkVersion is generated from package.json at build time.
  esbuildPlugins: [sdkReleasePlugin],
});
