import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    'push/index': 'src/push/index.ts',
    'push-worker/index': 'src/push-worker/index.ts',
    'realtime/index': 'src/realtime/index.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'es2023',
  sourcemap: true,
  // Workspace packages and msw stay imports; the app's bundler resolves them.
  external: ['@platform/errors', '@platform/schema', 'msw'],
});
