import { defineConfig } from 'tsup';

export default defineConfig({
  // The PGlite worker is its own entry, emitted beside index.js where pglite-database.ts looks.
  entry: { index: 'src/index.ts', bin: 'src/bin.ts', 'pglite-worker': 'src/db/pglite-worker.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'es2023',
  sourcemap: true,
});
