import { latestKnownSdkVersion } from '../../sdk-release.ts';
import { compareVersions, featureSince } from '../../sdk-versions.ts';
import type { RuleContext } from '../context.ts';
import type { PathSegment } from '../diagnostic.ts';
import { namingRules } from '../patterns.ts';

/**
 * Spec section 9: schemaVersion 3 for routes, provides.integration and slots; the runtime SDK
 * version each declared feature needs.
 */
export function checkVersions(ctx: RuleContext): void {
  const { manifest } = ctx;
  const pinned = manifest.runtime.sdk.version;
  // A version the schema refused (reported there) is compared with nothing.
  const comparable = namingRules.sdkVersion.pattern.test(pinned);
  if (comparable && compareVersions(pinned, latestKnownSdkVersion) > 0) {
    ctx.report(
      'SDK_VERSION_UNKNOWN',
      ['runtime', 'sdk', 'version'],
      `runtime.sdk.version ${pinned} is newer than ${latestKnownSdkVersion}, the newest version this validator knows; update @platform/broker to check its features.`,
    );
  }

  const needSchema3 = (path: readonly PathSegment[], feature: string) => {
    if (manifest.schemaVersion < 3) {
      ctx.report(
        'SCHEMA_VERSION_TOO_OLD',
        path,
        `${feature} need schemaVersion: 3, but the manifest has schemaVersion: ${manifest.schemaVersion}. Set schemaVersion: 3.`,
        'key',
      );
    }
  };
  const needSdk = (path: readonly PathSegment[], feature: string, minimum: string) => {
    if (!comparable) return;
    if (compareVersions(pinned, minimum) < 0) {
      ctx.report(
        'SDK_VERSION_TOO_OLD',
        path,
        `${feature} need runtime SDK ${minimum} or later, but runtime.sdk.version is ${pinned}. Set runtime.sdk.version to ${minimum} or later.`,
        'key',
      );
    }
  };

  manifest.functions.forEach((fn, i) => {
    if (fn.route === undefined) return;
    needSchema3(['functions', i, 'route'], 'Function routes');
    needSdk(['functions', i, 'route'], 'Function routes', featureSince.routes);
  });
  if (manifest.data.search.length > 0) {
    needSdk(['data', 'search'], 'Searches (data.search)', featureSince.search);
  }
  const contract = manifest.provides?.integration;
  if (contract !== undefined) {
    needSchema3(['provides', 'integration'], 'Integration contracts (provides.integration)');
    if (contract.sync)
      needSdk(['provides', 'integration', 'sync'], 'Integration sync', featureSince.sync);
    if (contract.webhook) {
      needSdk(
        ['provides', 'integration', 'webhook'],
        'Integration webhooks',
        featureSince.webhooks,
      );
    }
    if (contract.events)
      needSdk(['provides', 'integration', 'events'], 'Integration events', featureSince.events);
  }
  const slots = Object.entries(manifest.integrations);
  if (slots.length > 0) {
    needSchema3(['integrations'], 'Integration slots (integrations)');
    needSdk(['integrations'], 'Integration slots', featureSince.integrations);
  }
  for (const [slot, declaration] of slots) {
    if (declaration.events) {
      needSdk(
        ['integrations', slot, 'events'],
        'Integration event subscriptions',
        featureSince.events,
      );
    }
  }
}
