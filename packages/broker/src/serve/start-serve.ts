import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { serve as serveNode } from '@hono/node-server';
import { errorResponse } from '@platform/errors';
import { limits } from '@platform/schema';
import { CENTRAL_DATABASE, openCentralStore } from '../app/open-central.ts';
import { orgFrontApp } from '../app/org-front.ts';
import { appDeletedError, deletedAppPage } from '../auth/admission.ts';
import { AgentCredentials } from '../auth/agent-credentials.ts';
import type { Database } from '../db/database.ts';
import { PostgresDatabase } from '../db/postgres-database.ts';
import { S3FileStore } from '../files/s3-store.ts';
import { clientAddressOf, setClientAddress } from '../http/client-address.ts';
import { CUSTOM_DOMAIN_HEADER } from '../http/custom-domain.ts';
import { servicePaths } from '../http/paths.ts';
import { webSocketServer } from '../http/serve.ts';
import { CredentialCipher } from '../integrations/credential-cipher.ts';
import { openOrgIntegrations } from '../integrations/org-integrations.ts';
import { type Clock, inMinutes, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import {
  createServiceLogger,
  type ServiceLogger,
  standardOutput,
} from '../observability/logger.ts';
import { type MetricsServer, ServiceMetrics, serveMetrics } from '../observability/metrics.ts';
import { observeRequests } from '../observability/request-log.ts';
import { Memberships } from '../org/memberships.ts';
import { wantsHtml } from '../pages/forms.ts';
import { markup, pageResponse } from '../pages/page-shell.ts';
import { AppSecrets } from './app-secrets.ts';
import { startCentralSignIn } from './central-sign-in.ts';
import { CustomDomains, type DomainFetchTarget } from './custom-domains.ts';
import { removeDeletedApps } from './deleted-app-removal.ts';
import { DeletedAppSweeper } from './deleted-app-sweeper.ts';
import { appUrlOf, DeployedApps } from './deployed-apps.ts';
import { mountDeploymentRoutes } from './deployment-routes.ts';
import { mountDomainRoutes } from './domain-routes.ts';
import { issueSetupLink, mountFirstAdministrator } from './first-administrator.ts';
import { forwardedClient } from './forwarded-client.ts';
import { hostName, routeHost, withServiceScheme } from './host-routing.ts';
import { trustedProxyList } from './network-settings.ts';
import { ownerAccess } from './owner-access.ts';
import { postgresReadiness, type ReadinessCheck, ReadinessProbes } from './readiness.ts';
import { ServeRestoredApps } from './restored-apps.ts';
import { mountSecretRoutes } from './secret-routes.ts';
import { mountServeOnboarding } from './serve-onboarding.ts';
import type { ServeSettings } from './serve-settings.ts';
import { smtpMail } from './smtp-mail.ts';

/** A running `platform serve`. */
export interface RunningService {
  /** Where it listens, as `http://host:port`. */
  readonly listenUrl: string;
  /** `{base_url}`. */
  readonly baseUrl: string;
  /** The Prometheus address, `http://host:port/metrics`. */
  readonly metricsUrl: string;
  /**
   * Stops accepting connections, lets the requests in flight finish for up to the drain bound,
   * then closes every connection, the metrics listener and the central store.
   */
  drain(): Promise<{ unfinished: number }>;
}

/** What {@link startServe} needs besides the settings. */
export interface ServeOptions {
  readonly settings: ServeSettings;
  /** The JSON logger. @default one writing to standard output at the settings' level */
  readonly logger?: ServiceLogger;
  /** Writes the one line a person must read at the terminal (the setup link). */
  readonly announce: (line: string) => void;
  readonly clock?: Clock;
  /**
   * Where a custom domain's verification connects instead of the domain itself: for tests,
   * whose loopback names stand for real domains. No setting or request sets it.
   */
  readonly domainFetchTarget?: DomainFetchTarget;
}

/**
 * Starts the service of `platform serve` (docs/production.md): the central store on the
 * settings' PostgreSQL server, `{base_url}` on the base domain (the organisation's front, as a
 * workspace serves it, without a dev token), every request routed by its Host, the health
 * checks on every host, the JSON request log and the metrics on their own address. While the
 * store has no platform administrator it announces a one-time setup link.
 */
export async function startServe(options: ServeOptions): Promise<RunningService> {
  const { settings } = options;
  const clock = options.clock ?? systemClock;
  // Its own standard output is stopped at the end of the drain; a logger passed in is the caller's.
  const output = options.logger === undefined ? standardOutput() : undefined;
  const logger =
    options.logger ??
    createServiceLogger({ level: settings.logLevel, ...(output ? { destination: output } : {}) });
  await mkdir(settings.filesDir, { recursive: true, mode: 0o700 });
  await mkdir(dirname(settings.credentialKeyFile), { recursive: true, mode: 0o700 });
  // Made (or checked) now, so a bad key stops the start rather than the first connection.
  const cipher = await CredentialCipher.openFile(settings.credentialKeyFile);
  const central: Database = await openCentralStore({
    dir: dirname(settings.filesDir),
    databaseUrl: settings.databaseUrl,
  });
  // Before anything listens: no request or deployment of a deleted app can be under way.
  await removeDeletedApps({ settings, central, logger });
  // Also before it listens, so the files of an app deleted while it was down are gone at once.
  const sweeper = new DeletedAppSweeper({ settings, central, clock, logger });
  sweeper.start();
  const metrics = new ServiceMetrics();
  if (central instanceof PostgresDatabase) {
    metrics.trackPool(CENTRAL_DATABASE, () => central.poolUse());
  }
  // A browser relayed from a custom domain goes back there: the central sign-in knows which.
  const appPeers = () =>
    deployed.appIds().map((appId) => ({
      appId,
      url: appUrlOf(settings.baseUrl, appId),
      domains: domains.verifiedOf(appId),
    }));
  // Without a mail server nothing is sent and nothing is captured in its place.
  const mail = smtpMail(settings.mail, settings.baseDomain, logger);
  const signIn = await startCentralSignIn({
    mail: mail.service,
    databaseUrl: settings.databaseUrl,
    central,
    baseUrl: settings.baseUrl,
    organisation: settings.organisation,
    clock,
    apps: appPeers,
    print: (line) => logger.info({ app: 'base' }, line),
  });
  // A backup of a deployed app restored into a new app beside it, which then serves.
  const restoredApps = new ServeRestoredApps({
    settings,
    central,
    clock,
    sync: (appId) => deployed.sync(appId),
  });
  const secrets = new AppSecrets({ central, cipher, clock });
  await secrets.start();
  // The organisation's integrations, shared by every deployed app: their connections sealed
  // with the service's credential key, their connect pages and OAuth callback on {base_url}.
  const integrations = await openOrgIntegrations({
    central,
    dir: undefined,
    keyFile: settings.credentialKeyFile,
    apps: () => deployed.providers(),
    baseUrl: () => settings.baseUrl,
    print: (line) => logger.info({ event: 'integrations' }, line),
    clock,
    environment: settings.environment,
  });
  // Who may use the owner API, asked by its routes on {base_url} and by each app's own.
  const access = ownerAccess({ central, clock, baseDomain: settings.baseDomain });
  const deployed: DeployedApps = new DeployedApps({
    settings,
    central,
    clock,
    logger,
    secrets,
    access,
    centralSignInAt: signIn.at,
    mail: (appId) => mail.app(appId),
    newApps: (appId) => restoredApps.hostFor(appId),
    integrations,
  });
  const domains = new CustomDomains({
    central,
    clock,
    fetchTarget: options.domainFetchTarget,
  });
  await domains.start();
  const front = orgFrontApp({
    organisation: settings.organisation,
    serviceHost: settings.baseDomain,
    apps: () =>
      deployed.appIds().map((appId) => ({
        appId,
        url: appUrlOf(settings.baseUrl, appId),
        fetch: async (request) =>
          (await deployed.fetch(appId, request)) ?? notDeployedPage(appId, settings.baseUrl),
      })),
    members: new Memberships(central),
    agentCredentials: new AgentCredentials(central, clock),
    central,
    clock,
    print: (line) => logger.error({ event: 'broker error' }, line),
    routes: (app) => {
      mountFirstAdministrator(app, { central, clock });
      signIn.mount(app);
      mountServeOnboarding(app, {
        central,
        clock,
        signIn,
        baseUrl: settings.baseUrl,
        baseDomain: settings.baseDomain,
        organisation: settings.organisation,
        print: (line) => logger.info({ app: 'base' }, line),
      });
      mountDeploymentRoutes(app, { settings, central, clock, apps: deployed, access });
      mountDomainRoutes(app, { access, domains, baseDomain: settings.baseDomain });
      mountSecretRoutes(app, { access, secrets });
    },
  });
  metrics.trackApps(() => deployed.gauges());
  // Loaded while the service already listens: healthz answers at once, readyz once they run,
  // and a request for an app still starting waits for it.
  let draining: Promise<{ unfinished: number }> | undefined;
  const loading = deployed.startActive();
  // Sync schedules and event deliveries run once the apps are loaded; each takes a lease in the
  // central store, so several nodes never run the same one twice.
  void loading.then(() => {
    if (draining === undefined) integrations.start();
  });
  // Apps' files go to this bucket when it is set (each app under its own prefix); readyz asks it
  // through this client of its own, so downloads holding the apps' sockets never delay it.
  const objectStorage =
    settings.objectStorage === undefined ? undefined : new S3FileStore(settings.objectStorage);
  // Readyz answers from background probes on connections of their own, so a node whose request
  // pools are busy still answers it at once (docs/production.md, Health).
  const centralReady: ReadinessCheck =
    central instanceof PostgresDatabase
      ? postgresReadiness(central.connectionString, 'central store unreachable')
      : { reason: 'central store unreachable', probe: () => central.query('SELECT 1') };
  const readiness = new ReadinessProbes([
    centralReady,
    ...(objectStorage === undefined
      ? []
      : [{ reason: 'file storage unreachable', probe: () => objectStorage.check() }]),
  ]);
  await readiness.start();
  /** Why the service is not ready, or `undefined` when it is. */
  const notReady = (): string | undefined => readiness.notReady() ?? deployed.notReady();
  const trustedProxies = trustedProxyList(settings.trustedProxies);
  const handle = async (received: Request, env?: unknown): Promise<Response> => {
    const request = withServiceScheme(received, settings.baseUrl);
    // The client, for the per-client sign-in limits: the socket's peer, or the address a
    // trusted proxy names for it.
    const peer = clientAddressOf(env);
    if (peer !== undefined) {
      setClientAddress(
        env,
        forwardedClient(peer, request.headers.get('x-forwarded-for'), trustedProxies),
      );
    }
    // Only this service says a request came by a custom domain.
    request.headers.delete(CUSTOM_DOMAIN_HEADER);
    const { pathname } = new URL(request.url);
    if (pathname === servicePaths.healthz) return Response.json({ status: 'alive' });
    if (pathname === servicePaths.readyz) {
      const reason = notReady();
      return reason === undefined
        ? Response.json({ status: 'ready' })
        : Response.json({ status: 'not ready', reason }, { status: 503 });
    }
    const host = hostName(request.headers.get('host'));
    const target = routeHost(host, settings.baseDomain);
    if (target.kind === 'base') return front.fetch(request, env);
    if (target.kind === 'app') {
      return (
        (await deployed.fetch(target.appId, request, env)) ??
        (await deletedAnswer(central, target.appId, request)) ??
        notDeployedPage(target.appId, settings.baseUrl)
      );
    }
    const owner = domains.appFor(host);
    if (owner !== undefined) {
      return (
        (await deployed.fetch(owner, viaCustomDomain(request), env)) ??
        (await deletedAnswer(central, owner, request)) ??
        unknownHostPage(settings.baseUrl)
      );
    }
    return unknownHostPage(settings.baseUrl);
  };
  const observed = observeRequests(
    handle,
    (request) => {
      const host = hostName(request.headers.get('host'));
      const target = routeHost(host, settings.baseDomain);
      const owner = target.kind === 'unknown' ? domains.appFor(host) : undefined;
      return {
        host,
        app: target.kind === 'app' ? target.appId : (owner ?? target.kind),
      };
    },
    { logger, metrics },
  );
  const server = await new Promise<Server>((resolve, reject) => {
    const started = serveNode(
      {
        fetch: observed,
        port: settings.listen.port,
        hostname: settings.listen.host,
        websocket: { server: webSocketServer() },
      },
      () => resolve(started as Server),
    );
    started.once('error', reject);
  });
  // A request is in flight from its headers until its response is sent or its socket dies:
  // counted on the Node server, since a Response resolves before its body is written.
  let inFlight = 0;
  let idle: (() => void) | undefined;
  server.on('request', (_request, response) => {
    inFlight += 1;
    response.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) idle?.();
    });
  });
  let metricsServer: MetricsServer;
  try {
    metricsServer = await serveMetrics(metrics, settings.metricsListen);
  } catch (error) {
    server.close();
    await readiness.close();
    await loading;
    await integrations.stop();
    await deployed.close();
    domains.close();
    await secrets.close();
    await signIn.close();
    await central.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const listenUrl = `http://${host}:${address.port}`;
  logger.info(
    {
      listen: listenUrl,
      baseUrl: settings.baseUrl,
      metrics: metricsServer.url,
      environment: settings.environment,
      files: objectStorage?.description ?? settings.filesDir,
    },
    'platform serve started',
  );
  const secret = await issueSetupLink(central, clock);
  if (secret !== undefined) {
    options.announce(
      `No platform administrator yet. Open this link within ${inMinutes(limits.setupLinkSeconds)} to create the first one (it works once): ${settings.baseUrl}${servicePaths.setup}?key=${secret}`,
    );
  }
  return {
    listenUrl,
    baseUrl: settings.baseUrl,
    metricsUrl: metricsServer.url,
    drain() {
      draining ??= (async () => {
        logger.info({ inFlight }, 'draining');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (inFlight > 0) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            new Promise<void>((resolve) => {
              idle = resolve;
            }),
            new Promise<void>((resolve) => {
              timer = setTimeout(resolve, settings.drainSeconds * 1000);
            }),
          ]);
          clearTimeout(timer);
        }
        const unfinished = inFlight;
        server.closeAllConnections();
        await closed;
        await metricsServer.close();
        await readiness.close();
        // Stopped before the apps close, so no sync or delivery starts on a closing app.
        await loading.catch(() => undefined);
        await integrations.stop();
        await deployed.close();
        await sweeper.close();
        domains.close();
        await secrets.close();
        await signIn.close();
        mail.close();
        await central.close();
        objectStorage?.close();
        logger.info({ unfinished }, 'stopped');
        output?.stop();
        return { unfinished };
      })();
      return draining;
    },
  };
}

/**
 * The answer at the address of an app that no revision serves because it was deleted (its
 * organisation's only member deleted their account, spec 3.5): `APP_DELETED` (410), or its page
 * for a browser, as the app's own broker answers while its revision still runs. `undefined`
 * when the app was not deleted, or was deployed anew since.
 */
async function deletedAnswer(
  central: Database,
  appId: string,
  request: Request,
): Promise<Response | undefined> {
  const { rows } = await central.query(
    `SELECT 1 FROM platform.deleted_apps d
      WHERE d.app_id = $1 AND NOT EXISTS (SELECT 1 FROM platform.apps a WHERE a.app_id = d.app_id)`,
    [appId],
  );
  if (rows.length === 0) return undefined;
  if (wantsHtml(request)) return deletedAppPage();
  const requestId = newId('request');
  const response = errorResponse(appDeletedError(), requestId);
  response.headers.set('x-request-id', requestId);
  return response;
}

/** The page of an app address where no app is deployed: never another app's answer. */
export function notDeployedPage(appId: string, baseUrl: string): Response {
  return pageResponse(
    {
      title: 'No app here',
      forms: false,
      body: markup`<h1>No app is deployed at this address</h1><p>Nothing answers for “${appId}” on this service. Check the address; the service itself is at <a href="${baseUrl}">${baseUrl}</a>.</p>`.toString(),
    },
    { status: 404 },
  );
}

/** The page of a host name the service does not serve. */
function unknownHostPage(baseUrl: string): Response {
  return pageResponse(
    {
      title: 'Not found',
      forms: false,
      body: markup`<h1>Not found</h1><p>This service answers no site at this address. It is at <a href="${baseUrl}">${baseUrl}</a>.</p>`.toString(),
    },
    { status: 404 },
  );
}

/** `request` marked as come by a custom domain ({@link CUSTOM_DOMAIN_HEADER}). */
function viaCustomDomain(request: Request): Request {
  const marked = new Request(request);
  marked.headers.set(CUSTOM_DOMAIN_HEADER, '1');
  return marked;
}
