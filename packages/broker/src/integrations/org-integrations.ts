import { join } from 'node:path';
import { PlatformError } from '@platform/errors';
import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { centralAuthority } from '../org/authority.ts';
import { Bindings } from './bindings.ts';
import { ConnectLinks } from './connect-links.ts';
import { Connections } from './connections.ts';
import { CredentialCipher } from './credential-cipher.ts';
import { DevIntegrationModes } from './dev-integration-modes.ts';
import { EventDeliveries } from './event-deliveries.ts';
import { IntegrationAdmin } from './integration-admin.ts';
import { IntegrationAudit } from './integration-audit.ts';
import { IntegrationCalls } from './integration-calls.ts';
import { IntegrationEvents } from './integration-events.ts';
import { IntegrationRules } from './integration-rules.ts';
import { IntegrationSync } from './integration-sync.ts';
import { OAuthStates } from './oauth-states.ts';
import { OAuthTokens } from './oauth-tokens.ts';
import type { ProviderApp } from './provider-app.ts';
import { IntegrationWebhooks } from './webhooks.ts';

/** How to open an organisation's integrations. */
export interface OrgIntegrationsOptions {
  /** The organisation's central store. */
  readonly central: Database;
  /**
   * The folder whose `.platform/credentials.key` seals credentials (the workspace's, or a
   * single app's); `undefined` keeps the key in memory (in-memory stores of tests).
   */
  readonly dir: string | undefined;
  /**
   * The file of the key that seals credentials, instead of the one in `dir` (`platform serve`
   * keeps it where its settings say). @default `<dir>/.platform/credentials.key`
   */
  readonly keyFile?: string | undefined;
  /** The organisation's apps, as integration calls reach them. */
  readonly apps: () => readonly ProviderApp[];
  /** `{base_url}`: where connect pages are served. */
  readonly baseUrl: () => string;
  readonly print: LogWriter;
  /** Told one line for each integration call and event delivery (`platform dev` prints it). */
  readonly activity?: LogWriter | undefined;
  readonly clock?: Clock | undefined;
  /**
   * `production` runs every call live, `calling_user` slots included; `platform dev` is
   * `development`, where calls answer their fakes until a slot is switched live.
   * @default 'development'
   */
  readonly environment?: 'development' | 'production';
}

/** Everything integrations are, for one organisation: shared by all of its apps' brokers. */
export interface OrgIntegrations {
  readonly connections: Connections;
  readonly bindings: Bindings;
  readonly audit: IntegrationAudit;
  readonly modes: DevIntegrationModes;
  readonly admin: IntegrationAdmin;
  /** OAuth tokens: exchange, refresh, and the credentials a provider Function receives. */
  readonly tokens: OAuthTokens;
  readonly calls: IntegrationCalls;
  readonly webhooks: IntegrationWebhooks;
  readonly events: IntegrationEvents;
  /** The delivery of emitted events outside development. */
  readonly deliveries: EventDeliveries;
  /** The providers' sync schedules. */
  readonly sync: IntegrationSync;
  /** Starts the sync schedules and event deliveries; whoever opened the integrations does. */
  start(): void;
  /** Stops them, waiting for what runs. */
  stop(): Promise<void>;
}

/**
 * Opens the integrations of the organisation whose central store is `central`
 * (docs/integrations.md): connections and OAuth tokens sealed with the key of
 * `<dir>/.platform/credentials.key`, bindings, connect links and OAuth sign-ins, the call audit,
 * webhooks, events and their delivery, sync schedules and the development session's modes.
 * `start()` runs the schedules and deliveries until `stop()`.
 */
export async function openOrgIntegrations(
  options: OrgIntegrationsOptions,
): Promise<OrgIntegrations> {
  const { central, clock } = options;
  const cipher =
    options.keyFile !== undefined
      ? await CredentialCipher.openFile(options.keyFile)
      : options.dir === undefined
        ? CredentialCipher.ephemeral()
        : await CredentialCipher.open(join(options.dir, '.platform'));
  const environment = options.environment ?? 'development';
  const connections = new Connections(central, cipher, clock);
  const bindings = new Bindings(central, clock);
  const rules = new IntegrationRules(centralAuthority(central));
  // The embedded store's audit answers once a row is journaled beside it (as durable as its own
  // commits); a PostgreSQL server's, once the row is committed there.
  const audit =
    options.dir !== undefined && central.kind === 'pglite'
      ? await IntegrationAudit.open(central, join(options.dir, '.platform', 'integration-calls'))
      : new IntegrationAudit(central);
  const modes = new DevIntegrationModes();
  const tokens = new OAuthTokens({ central, connections, print: options.print, clock });
  const admin = new IntegrationAdmin({
    central,
    connections,
    bindings,
    links: new ConnectLinks(central, clock),
    rules,
    modes,
    apps: options.apps,
    baseUrl: options.baseUrl,
    states: new OAuthStates(central, cipher, clock),
    tokens,
    environment,
  });
  // A connect link for `accountId`; the organisation's page when they may not have one (any
  // more), so an error always says where to go.
  const linkFor = async (
    accountId: string,
    request: () => Parameters<IntegrationAdmin['createLink']>[1],
  ): Promise<string> => {
    try {
      return (await admin.createLink(accountId, request())).url;
    } catch {
      return options.baseUrl();
    }
  };
  const calls = new IntegrationCalls({
    connections,
    bindings,
    rules,
    audit,
    modes,
    tokens,
    apps: options.apps,
    environment,
    print: options.print,
    activity: options.activity,
    ...(clock ? { clock } : {}),
    // A person without a connection gets a link to connect and bind in one step.
    connectUrl: (appId, slot, accountId) =>
      linkFor(accountId, () => ({
        providerAppId: admin.published(admin.slotOf(appId, slot).integration).provider.appId,
        kind: 'personal',
        bind: { appId, slot },
      })),
    // Only a caller who manages the connection (spec 3.2, 5.4: the owner of a personal
    // connection, an organisation administrator for an organisation one) gets a link, made out
    // to them: never to its creator on someone else's request, never to an anonymous visitor
    // or a system Function.
    reconnectUrl: async (connection, caller) => {
      if (caller.kind !== 'user') return undefined;
      try {
        await rules.checkManage(caller.userId, connection);
      } catch (error) {
        if (error instanceof PlatformError) return undefined;
        throw error;
      }
      return linkFor(caller.userId, () => ({
        providerAppId: connection.providerAppId,
        kind: connection.kind,
        connectionId: connection.id,
      }));
    },
  });
  const webhooks = new IntegrationWebhooks({
    connections,
    tokens,
    apps: options.apps,
    baseUrl: options.baseUrl,
    print: options.print,
    clock,
  });
  const deliveries = new EventDeliveries({
    central,
    bindings,
    connections,
    rules,
    apps: options.apps,
    print: options.print,
    activity: options.activity,
    environment,
    clock,
  });
  const events = new IntegrationEvents({
    central,
    bindings,
    deliveries,
    apps: options.apps,
    environment,
    clock,
  });
  const sync = new IntegrationSync({
    central,
    connections,
    tokens,
    apps: options.apps,
    print: options.print,
    clock,
  });
  return {
    connections,
    bindings,
    audit,
    modes,
    admin,
    tokens,
    calls,
    webhooks,
    events,
    deliveries,
    sync,
    start: () => {
      sync.start();
      deliveries.start();
    },
    stop: async () => {
      await Promise.all([sync.stop(), deliveries.stop()]);
      await audit.close();
    },
  };
}
