import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.ts';
import * as manifest from '../../src/manifest/index.ts';

describe('the two path formats', () => {
  it('quotes keys that are not identifiers in input paths, never in manifest paths', () => {
    const path = ['integrations', 'crm-app', 'events', 0];
    expect(root.formatInputPath(path)).toBe('integrations["crm-app"].events[0]');
    expect(manifest.formatManifestPath(path)).toBe('integrations.crm-app.events[0]');
  });

  it('keeps the former name of each as an alias', () => {
    expect(root.formatPath).toBe(root.formatInputPath);
    expect(manifest.formatPath).toBe(manifest.formatManifestPath);
  });
});
