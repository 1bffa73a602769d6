import type { Manifest } from '@platform/schema/manifest';
import { mountAppRoutes } from '../api/app-routes.ts';
import { mountBrokerApi } from '../api/dev-api.ts';
import type { Frontend } from '../api/frontend.ts';
import { RouteTable } from '../api/route-table.ts';
import type { OrgPeer } from '../auth/auth-options.ts';
import type { NewAppHost } from '../backups/new-app-host.ts';
import type { Database } from '../db/database.ts';
import type { OpenedDatabase } from '../db/open-database.ts';
import { MCP_PATH } from '../http/paths.ts';
import { appIntegrations } from '../integrations/app-integrations.ts';
import type { OrgIntegrations } from '../integrations/org-integrations.ts';
import type { Clock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { agentHttp, oneAppSender } from '../mcp/agent-http.ts';
import type { PublishingApp } from '../org/custom-integrations.ts';
import { mountVerificationRoutes } from '../verification/verification.ts';
import { declarationsOf, functionsOf } from './app-config.ts';
import type { DevFront } from './dev-front.ts';
import { type Broker, type BrokerOptions, startBrokerWith } from './start-broker.ts';

/**
 * When `platform dev` starts the Functions' processes: `ready` starts every declared Function's
 * process in the background as soon as the app is ready, so that no first call waits for a Deno
 * start; `call` starts each on its first call, so that a Function never called holds no memory.
 */
export type FunctionStart = 'ready' | 'call';

/** What every broker of one `platform dev` shares, whichever platform.yaml it serves. */
export interface DevBrokerContext {
  /** The app folder (absolute). */
  readonly appDir: string;
  /** The app's id. */
  readonly appId: string;
  /** The broker's state folder. @default `<appDir>/.platform` */
  readonly stateDir?: string | undefined;
  /** Makes the new apps this app's backups are restored into (`restore --to`). @default none */
  readonly newApps?: NewAppHost | undefined;
  /** `{app_url}`: email links are built from it. */
  readonly appUrl: string;
  /** The organisation's central store: accounts, verifiers, email links. */
  readonly central: Database;
  /** The apps of the organisation, for sign-in across them. */
  readonly peers?: () => readonly OrgPeer[];
  readonly print: LogWriter;
  /** Lines for what the app does (jobs run, email), when they are printed. */
  readonly activity?: { readonly write: LogWriter } | undefined;
  /** Opens the control plane; the same for every restart, so `.platform/dev.json` stays valid. */
  readonly devToken: string;
  /** The app's `public/` folder, served after every other route. */
  readonly frontend: Frontend;
  /** The port, bound once; each broker serves behind it and is activated once started. */
  readonly front: DevFront;
  readonly authenticate?: BrokerOptions['authenticate'];
  readonly databaseUrl?: string | undefined;
  readonly allowNet?: BrokerOptions['allowNet'];
  /** When the Functions' processes start (see `DevStartOptions.startFunctions`). @default 'ready' */
  readonly startFunctions?: FunctionStart | undefined;
  readonly environment?: BrokerOptions['environment'];
  readonly snapshotPath?: string | undefined;
  readonly inMemory?: boolean;
  readonly clock?: Clock;
  readonly ai?: BrokerOptions['ai'];
  /** The organisation's apps (this one included) with the platform.yaml each serves now. */
  readonly publishers: () => readonly PublishingApp[];
  /** The organisation's connections, bindings and integration calls. */
  readonly integrations: OrgIntegrations;
}

/**
 * Starts the broker for one version of platform.yaml behind the dev's port: its SDK pin,
 * declarations, queues, cron and visibility, the broker API, the manifest's Function routes and
 * the frontend; then bundles every declared Function, and only then has the port send the app's
 * requests to it; then (unless `startFunctions` is `call`) starts their processes in the
 * background. When a Function fails, the broker is closed again (Functions
 * still starting included) and the failure thrown. `database`, when given, is the app's database
 * opened already, which the broker takes over (see `startBrokerWith`).
 */
export async function launchDevBroker(
  context: DevBrokerContext,
  manifest: Manifest,
  database?: OpenedDatabase,
): Promise<Broker> {
  const { appDir, print, devToken, frontend, clock, front } = context;
  const routes = RouteTable.fromManifest(manifest);
  const { integrations } = context;
  // `platform invoke` of an integration Function runs for the session's test connection.
  const { direct } = appIntegrations(integrations, context.appId, manifest);
  const broker = await startBrokerWith(
    {
      appDir,
      appId: context.appId,
      ...(context.stateDir ? { stateDir: context.stateDir } : {}),
      ...(context.newApps ? { newApps: context.newApps } : {}),
      central: context.central,
      listener: front.next(),
      sdkVersion: manifest.runtime.sdk.version,
      declared: declarationsOf(manifest),
      searches: manifest.data.search,
      realtime: manifest.realtime,
      inboundFunction: manifest.email.inbound?.function,
      jobs: { queues: manifest.queues, cron: manifest.cron, ...(clock ? { clock } : {}) },
      auth: {
        visibility: manifest.visibility,
        print,
        devToken,
        appUrl: context.appUrl,
        ...(context.peers ? { peers: context.peers } : {}),
        ...(clock ? { clock } : {}),
      },
      logWriter: print,
      ...(context.activity ? { activityWriter: context.activity.write } : {}),
      databaseUrl: context.databaseUrl,
      allowNet: context.allowNet,
      ...(context.environment ? { environment: context.environment } : {}),
      snapshotPath: context.snapshotPath,
      ...(context.inMemory ? { inMemory: true } : {}),
      ...(context.ai ? { ai: context.ai } : {}),
      ...(context.authenticate ? { authenticate: context.authenticate } : {}),
      integrations: { organisation: integrations, manifest, publishers: context.publishers },
      mount: (app, services) => {
        mountBrokerApi(app, {
          appId: context.appId,
          invoker: services.invoker,
          devToken,
          prepare: (name) => direct(name),
        });
        mountVerificationRoutes(app, {
          appId: context.appId,
          manifest,
          invoker: services.invoker,
          devToken,
        });
        // The agent tools, for this app's own owner API (a workspace serves them on {base_url}).
        const tools = agentHttp((credential) =>
          oneAppSender({ appId: context.appId, origin: context.appUrl, credential }, (request) =>
            app.fetch(request),
          ),
        );
        app.all(MCP_PATH, (c) => tools(c.req.raw));
        mountAppRoutes(app, { routes: () => routes, ...services });
        frontend.mount(app);
      },
    },
    database,
  );
  try {
    await Promise.all(broker.functions.addAll(functionsOf(manifest)));
  } catch (error) {
    await broker.close();
    throw error;
  }
  front.activate(broker.app);
  // After activation, so that ready is not delayed by them; a call that comes first joins its
  // Function's start under way.
  if ((context.startFunctions ?? 'ready') === 'ready') {
    void broker.functions.startAll();
    // Hono builds its route matcher on the first request, and with every route of the broker
    // that took about 50 ms of the app's first request here: built now instead, off that path.
    setImmediate(() => broker.app.router.match('GET', '/'));
  }
  return broker;
}
