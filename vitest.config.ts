import { defineConfig } from 'vitest/config';

// Tests import every @platform/* package from source through the `@platform/source`
// export condition, so no build is needed before `npm test`.
const conditions = ['@platform/source', 'module', 'node', 'default'];
// Vitest also hands the SSR conditions to Node for the modules it does not transform, so these
// leave out `module`: Node itself does not know it, and a package whose `module` build imports
// its files without extensions (the AWS SDK's) would not load. Dependencies load as in production.
const nodeConditions = ['@platform/source', 'node', 'default'];

const project = (name: string, extra: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: {
    name,
    include: [`packages/${name}/{src,test}/**/*.test.ts`],
    exclude: ['**/node_modules/**', '**/*.slow.test.ts'],
    // Type tests (`*.test-d.ts`) are checked by tsc with the package's test tsconfig.
    typecheck: {
      enabled: true,
      include: [`packages/${name}/test/**/*.test-d.ts`],
      tsconfig: `packages/${name}/tsconfig.test.json`,
    },
    ...extra,
  },
});

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: nodeConditions, externalConditions: ['@platform/source'] } },
  test: {
    projects: [
      project('errors'),
      project('schema'),
      project('server'),
      // The type tests augment `Register`, which would retype every unit test: they get their
      // own tsconfig (packages/browser/tsconfig.test.json leaves them out).
      project('browser', {
        typecheck: {
          enabled: true,
          include: ['packages/browser/test/**/*.test-d.ts'],
          tsconfig: 'packages/browser/tsconfig.typetest.json',
        },
      }),
      // The broker's tests drive real processes and a real Chromium: under a busy two-core CI
      // run a service worker or a job can take longer than expect.poll's default second.
      project('broker', {
        testTimeout: 60_000,
        hookTimeout: 120_000,
        expect: { poll: { timeout: 15_000 } },
      }),
      // Clusters, chaos runs and registry round trips: slow by nature, so they live apart
      // (`*.slow.test.ts`), run one file at a time, and each bounds its own run.
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['packages/*/test/**/*.slow.test.ts', 'scripts/**/*.slow.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          expect: { poll: { timeout: 30_000 } },
        },
      },
      {
        extends: true,
        test: {
          name: 'repo',
          include: ['scripts/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.slow.test.ts'],
        },
      },
    ],
  },
});
