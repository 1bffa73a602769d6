import type { Manifest } from '@platform/schema/manifest';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows } from '../feature/erase-rows.ts';
import { mountCustomIntegrationRoutes, type PublishingApp } from '../org/custom-integrations.ts';
import { Memberships } from '../org/memberships.ts';
import { type AppIntegrations, appIntegrations } from './app-integrations.ts';
import { mountIntegrationRoutes } from './integration-routes.ts';
import { integrationSection } from './integration-section.ts';
import type { OrgIntegrations } from './org-integrations.ts';

/** An app's place among its organisation's integrations. */
export interface IntegrationsSettings {
  /** The organisation's connections, bindings and calls. */
  readonly organisation: OrgIntegrations;
  /** The app's platform.yaml as it serves now. */
  readonly manifest: Manifest;
  /** The organisation's apps with the platform.yaml each serves now. */
  readonly publishers: () => readonly PublishingApp[];
}

/**
 * The app's side of integrations (docs/integrations.md): `ctx.integrations` and
 * `ctx.integration.emit` of its Functions, and the owner API of
 * connections, bindings, development modes and the call audit, the connect pages and webhooks.
 * Without an organisation, the calls answer FEATURE_NOT_AVAILABLE.
 */
export function integrationsFeature(
  settings: IntegrationsSettings | undefined,
): BrokerFeature<'integrations', object, Partial<AppIntegrations>> {
  return {
    name: 'integrations',
    start: (base) =>
      settings ? appIntegrations(settings.organisation, base.appId, settings.manifest) : {},
    dashboard: [integrationSection],
    mount: {
      routes: (app, _service, _needs, { appId, central }) => {
        if (!settings) return;
        const org = settings.organisation;
        mountCustomIntegrationRoutes(app, { appId, apps: settings.publishers });
        mountIntegrationRoutes(app, {
          appId,
          admin: org.admin,
          connections: org.connections,
          bindings: org.bindings,
          audit: org.audit,
          modes: org.modes,
          webhooks: org.webhooks,
          events: org.events,
          members: new Memberships(central),
        });
      },
    },
    erasure: {
      person: async (tx, { accountId }) => {
        await eraseRows(tx, 'bindings', 'person_account_id = $1', [accountId]);
        await eraseRows(tx, 'connect_links', 'account_id = $1', [accountId]);
        await eraseRows(tx, 'oauth_states', 'account_id = $1', [accountId]);
        // A personal connection goes with its owner, and its bindings with it (ON DELETE CASCADE).
        await eraseRows(tx, 'connections', 'owner_account_id = $1', [accountId]);
      },
      // Bindings go before their connections. Call audit rows name no person and stay.
      organisation: async (tx) => {
        const tables = ['bindings', 'connect_links', 'oauth_states'];
        for (const table of [...tables, 'integration_event_deliveries', 'connections']) {
          await eraseRows(tx, table);
        }
      },
    },
  };
}
