import { describe, expect, it } from 'vitest';
import { latestKnownSdkVersion } from '../../src/manifest/index.ts';
import { BASE, expectOne, run } from './helpers.ts';

// One minor past the newest version this validator knows, whatever the release.
const [major, minor] = latestKnownSdkVersion.split('.').map(Number);
const unknownSdkVersion = `${major}.${(minor ?? 0) + 1}.0`;

const withVersions = (schema: string, sdk: string, rest: string) =>
  BASE.replace('schemaVersion: 3', `schemaVersion: ${schema}`).replace(
    'version: 2.6.0',
    `version: ${sdk}`,
  ) + rest;

const routeFn = (marker = '') =>
  `  - name: r\n    entrypoint: functions/api/index.ts\n    access: user\n    ${marker}route:\n      path: /r\n`;
const slot = `  crm:\n    provider: custom\n    integration: acme-crm\n    account: app\n    capabilities: [contacts.read]\n`;
const contract = (extra = '') =>
  `provides:\n  integration:\n    name: acme\n    title: Acme\n    capabilities:\n      - name: read\n        description: Read.\n${extra}`;

describe('schemaVersion and runtime.sdk.version', () => {
  it.each(['4', '0', '2.5', "'3'"])('rejects schemaVersion %s', async (value) => {
    await expectOne(
      withVersions(`👉${value}`, '2.6.0', ''),
      'SCHEMA_VERSION_UNSUPPORTED',
      'schemaVersion',
    );
  });

  it.each(['2.6', 'v2.6.0', 'latest'])('rejects the SDK version %s', async (value) => {
    await expectOne(
      withVersions('3', `👉${value}`, ''),
      'SDK_VERSION_INVALID',
      'runtime.sdk.version',
    );
  });

  it('warns about an SDK version newer than it knows', async () => {
    const d = await expectOne(
      withVersions('3', `👉${unknownSdkVersion}`, ''),
      'SDK_VERSION_UNKNOWN',
      'runtime.sdk.version',
    );
    expect(d.severity).toBe('warning');
  });

  it('needs schema 3 for routes', async () => {
    await expectOne(
      withVersions('2', '2.6.0', routeFn('👉')),
      'SCHEMA_VERSION_TOO_OLD',
      'functions[3].route',
    );
  });

  it('needs SDK 2.3.0 for routes', async () => {
    await expectOne(
      withVersions('3', '2.2.9', routeFn('👉')),
      'SDK_VERSION_TOO_OLD',
      'functions[3].route',
    );
    const { errors } = await run(withVersions('3', '2.3.0', routeFn()));
    expect(errors).toEqual([]);
  });

  it('needs schema 3 for provides.integration', async () => {
    await expectOne(
      withVersions('2', '2.6.0', contract()).replace('  integration:', '  👉integration:'),
      'SCHEMA_VERSION_TOO_OLD',
      'provides.integration',
    );
  });

  it('needs schema 3 and SDK 2.2.0 for slots', async () => {
    await expectOne(
      withVersions('2', '2.6.0', `👉integrations:\n${slot}`),
      'SCHEMA_VERSION_TOO_OLD',
      'integrations',
    );
    await expectOne(
      withVersions('3', '2.1.0', `👉integrations:\n${slot}`),
      'SDK_VERSION_TOO_OLD',
      'integrations',
    );
    const { errors } = await run(withVersions('3', '2.2.0', `integrations:\n${slot}`));
    expect(errors).toEqual([]);
  });

  it('needs SDK 2.4.0 for data.search', async () => {
    await expectOne(
      withVersions(
        '3',
        '2.3.0',
        'data:\n  👉search:\n    - name: s\n      table: t\n      select: [id]\n      fullText:\n        columns: [title]\n',
      ),
      'SDK_VERSION_TOO_OLD',
      'data.search',
    );
  });

  it.each([
    [
      'sync',
      '    👉sync:\n      function: worker\n      schedule: "0 * * * *"\n',
      'provides.integration.sync',
    ],
    ['webhook', '    👉webhook:\n      function: worker\n', 'provides.integration.webhook'],
    [
      'events',
      '    👉events:\n      - type: a.b\n        capability: read\n        description: D.\n        fake: {}\n',
      'provides.integration.events',
    ],
  ])('needs SDK 2.6.0 for integration %s', async (_, extra, path) => {
    await expectOne(withVersions('3', '2.5.0', contract(extra)), 'SDK_VERSION_TOO_OLD', path);
  });

  it('needs SDK 2.6.0 for slot event subscriptions', async () => {
    await expectOne(
      withVersions('3', '2.5.0', `integrations:\n${slot}    👉events:\n      function: worker\n`),
      'SDK_VERSION_TOO_OLD',
      'integrations.crm.events',
    );
  });
});
