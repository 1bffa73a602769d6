import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { sdkReleaseModule, sdkReleasePlugin } from '../../build/version-plugin.ts';
import { featureSince } from '../../src/contract/index.ts';
import { latestKnownSdkVersion, sdkFeatures } from '../../src/manifest/index.ts';
import { contextRoutes } from '../../src/routes.ts';
import { compareVersions } from '../../src/sdk-versions.ts';

describe('one table of SDK features', () => {
  it('gives the versioned runtime routes their version from the feature table', () => {
    expect(contextRoutes.dataSearch.since).toBe(featureSince.search);
    expect(contextRoutes.integrationsCall.since).toBe(featureSince.integrations);
    expect(contextRoutes.integrationEmit.since).toBe(featureSince.integration);
    const unlisted = Object.entries(contextRoutes).filter(
      ([name]) => !['dataSearch', 'integrationsCall', 'integrationEmit'].includes(name),
    );
    for (const [, route] of unlisted) expect(route.since).toBe('2.0.0');
  });

  it('keeps the manifest names as a view of the same versions', () => {
    expect(sdkFeatures).toEqual({
      integrationSlots: featureSince.integrations,
      routes: featureSince.routes,
      httpContext: featureSince.http,
      fileGrants: featureSince.enqueueFiles,
      search: featureSince.search,
      sync: featureSince.sync,
      webhooks: featureSince.webhooks,
      events: featureSince.events,
      integrationContext: featureSince.integration,
    });
  });

  it('knows no feature newer than the newest known version', () => {
    for (const since of Object.values(featureSince)) {
      expect(compareVersions(since, latestKnownSdkVersion)).toBeLessThanOrEqual(0);
    }
  });
});

const root = new URL('../../../../', import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(new URL(path, root), 'utf8'));
const versionOf = (name: string) =>
  (readJson(`packages/${name}/package.json`) as { version: string }).version;

describe('the newest known SDK version', () => {
  it('is the version of the runtime SDK released with this package', () => {
    expect(latestKnownSdkVersion).toBe(versionOf('server'));
    expect(latestKnownSdkVersion).toBe(versionOf('schema'));
  });

  it('moves with every SDK release: schema and server share one fixed version group', () => {
    const { fixed } = readJson('.changeset/config.json') as { fixed: string[][] };
    const group = fixed.find((names) => names.includes('@platform/server'));
    expect(group).toContain('@platform/schema');
  });

  it('is written into the build as the package.json version, without the rest of it', async () => {
    expect(sdkReleaseModule()).toBe(
      `export const latestKnownSdkVersion = ${JSON.stringify(versionOf('schema'))};\n`,
    );
    const out = await build({
      entryPoints: [new URL('../../src/manifest/rules/versions.ts', import.meta.url).pathname],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      external: ['zod', 'yaml', 'croner', '@platform/errors'],
      plugins: [sdkReleasePlugin],
    });
    const code = out.outputFiles[0]?.text ?? '';
    expect(code).toContain(JSON.stringify(versionOf('schema')));
    expect(code).not.toContain('"dependencies"');
  });
});
