import { defineConfig } from 'tsup';
import { versionPlugin } from './build/version-plugin.ts';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    host: 'src/host/deno.ts',
    'testing/index': 'src/testing/index.ts',
    'testing/msw': 'src/testing/msw.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'es2023',
  sourcemap: true,
  external: ['msw'],
  // PLATFORM_SDK_VERSION is generated from package.json at build time.
  esbuildPlugins: [versionPlugin],
});
