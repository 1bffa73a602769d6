import { describe, expect, it } from 'vitest';
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
