import { defineConfig } from 'tsup';

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
});
