import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Manifest, parseManifest } from '@platform/schema/manifest';
import type { AiOptions } from '../ai/ai-config.ts';
import { mountAppRoutes } from '../api/app-routes.ts';
import { Frontend } from '../api/frontend.ts';
import { RouteTable } from '../api/route-table.ts';
import { declarationsOf, functionsOf } from '../app/app-config.ts';
import { type Broker, startBroker } from '../app/start-broker.ts';
import type { OrgPeer } from '../auth/auth-options.ts';
import { heldOrPaused } from '../backups/inspection-hold.ts';
import type { NewAppHost } from '../backups/new-app-host.ts';
import type { Database } from '../db/database.ts';
import { appDatabaseName, ensureDatabase } from '../db/database-per-app.ts';
import { readDeployment, writeDeployment } from '../deploy/archive.ts';
import type { FileStorageSettings } from '../files/files-feature.ts';
import { providerApp } from '../integrations/app-integrations.ts';
import type { OrgIntegrations } from '../integrations/org-integrations.ts';
import type { ProviderApp } from '../integrations/provider-app.ts';
import type { Clock } from '../kernel/clock.ts';
import type { ServiceLogger } from '../observability/logger.ts';
import type { AppGauges } from '../observability/metrics.ts';
import type { PublishingApp } from '../org/custom-integrations.ts';
import type { MailDelivery } from '../outbox/mail-delivery.ts';
import type { AppSecrets } from './app-secrets.ts';
import { accountAdmission, type OwnerAccess } from './owner-access.ts';
import { removeUnlistedRevisions, revisionDir } from './revision-folders.ts';
import type { ServeSettings } from './serve-settings.ts';

/** The folder of the apps' state that outlives their revisions: never an app id either. */
export const APP_STATE_FOLDER = '_app-state';

/**
 * The state of app `appId` on this node that every revision shares (its Web Push keys, the
 * Functions' Deno cache), beside the revisions rather than in one of them. Its secrets are in
 * the central store ({@link AppSecrets}), never here.
 */
export const appStateDir = (filesDir: string, appId: string): string =>
  join(filesDir, APP_STATE_FOLDER, appId);

/**
 * The channel on which an activation is announced to every node on the central store, its
 * payload the app id: each node then reads the app's active revision and switches to it.
 */
export const ACTIVATIONS_CHANNEL = 'platform_active_deployments';

/**
 * How often each node reads every app's active revision anyway: the bound on how long a node
 * follows late when it missed an announcement (its listening connection was down meanwhile).
 */
export const FOLLOW_POLL_MS = 5_000;

/**
 * Where app `appId` keeps its files and backups: under its prefix of the bucket, or in a folder
 * of its own in the files folder. They outlive its revisions, and its deletion until the
 * sweep of deleted apps empties them.
 */
export function appFileStorage(settings: ServeSettings, appId: string): FileStorageSettings {
  return settings.objectStorage
    ? { kind: 's3', ...settings.objectStorage }
    : { kind: 'folder', dir: join(settings.filesDir, 'files', appId) };
}

/** `{app_url}` of `appId`: `<scheme>://<app>.<base domain>[:port]` of the service's base URL. */
export function appUrlOf(baseUrl: string, appId: string): string {
  const base = new URL(baseUrl);
  return `${base.protocol}//${appId}.${base.host}`;
}

/** One app's revision being served. */
interface Serving {
  readonly deploymentId: string;
  readonly broker: Broker;
  /** The revision's platform.yaml. */
  readonly manifest: Manifest;
  /**
   * A copy restored from a backup for inspection: it publishes no integration, so the live
   * app's provider is never shadowed by its held copy.
   */
  readonly held: boolean;
  /** Requests it is answering now. */
  inFlight: number;
  readonly idle: (() => void)[];
}

/** What the deployed apps need from the service. */
export interface DeployedAppsOptions {
  readonly settings: ServeSettings;
  readonly central: Database;
  readonly clock: Clock;
  readonly logger: ServiceLogger;
  /** The apps' secrets in the central store, which every revision's `ctx.secrets` reads. */
  readonly secrets: AppSecrets;
  /** The node's checks of `platform login`'s account credential, which each app's owner API admits. */
  readonly access: OwnerAccess;
  /**
   * The organisation's central sign-in, where each app's sign-in sends a browser without a
   * session first. @default none: each app signs in on its own
   */
  readonly centralSignInAt?: OrgPeer;
  /**
   * The host that makes new apps from the backups of `appId` (`platform backups restore --to`).
   * @default none: such a restore answers `FEATURE_NOT_AVAILABLE`
   */
  readonly newApps?: (appId: string) => NewAppHost;
  /**
   * The organisation's integrations, which every app's broker shares: `ctx.integrations`, the
   * connect pages and the owner API of connections and bindings. @default none: the apps'
   * integration calls answer `FEATURE_NOT_AVAILABLE`
   */
  readonly integrations?: OrgIntegrations;
  /**
   * What becomes of the email app `appId` sends: over the service's mail server from
   * `<alias>@<app>.<base domain>`, or refused without one.
   * @default none: `email.send` answers `FEATURE_NOT_AVAILABLE`
   */
  readonly mail?: (appId: string) => MailDelivery;
}

/**
 * The apps `platform serve` serves: for each, the broker of its active revision (production
 * environment, its own database in the cluster, its Functions from the revision's bundles, its
 * `public/`). {@link DeployedApps.activate} starts the new revision's broker before it takes
 * over; requests already in the old one finish there, new ones go to the new one, and the old
 * broker (its Function processes with it) stops once its last request is answered, or after
 * the drain bound.
 */
export class DeployedApps {
  readonly #options: DeployedAppsOptions;
  readonly #serving = new Map<string, Serving>();
  /** Activations of one app run one after another. */
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #stopping = new Set<Promise<void>>();
  #loading: Promise<void> | undefined;
  #loaded = false;
  #closed = false;
  #unlisten: (() => Promise<void>) | undefined;
  #poll: NodeJS.Timeout | undefined;
  /** Apps whose active revision failed to start with the service. */
  readonly #unloaded = new Map<string, string>();
  /** Revisions whose folder this node is writing or still reads: never swept. */
  readonly #inUse = new Map<string, number>();

  constructor(options: DeployedAppsOptions) {
    this.#options = options;
  }

  /**
   * Starts the active revision of every app the central store names, then follows the
   * activations made through other nodes ({@link DeployedApps.sync}); a failure is logged and
   * keeps the service not ready ({@link DeployedApps.notReady}) until that app is activated.
   */
  startActive(): Promise<void> {
    this.#loading ??= (async () => {
      await this.#follow();
      const { rows } = await this.#options.central.query<{ app_id: string }>(
        'SELECT app_id FROM platform.active_deployments ORDER BY app_id',
      );
      await Promise.all(
        rows.map((row) =>
          this.sync(row.app_id).catch((error: unknown) => {
            this.#options.logger.error(
              {
                app: row.app_id,
                deployment: this.#unloaded.get(row.app_id),
                err: String(error),
              },
              'an active revision did not start',
            );
          }),
        ),
      );
      this.#loaded = true;
      // What earlier runs of this node kept of revisions pruned meanwhile through other nodes.
      for (const { app_id: appId } of rows) void this.#sweep(appId);
    })();
    return this.#loading;
  }

  /**
   * Follows the active revisions other nodes on the same central store activate: an
   * announcement on {@link ACTIVATIONS_CHANNEL} syncs its app at once, and every
   * {@link FOLLOW_POLL_MS} every app is synced, for announcements missed while the listening
   * connection was down. Listening starts before the active revisions are first read, so an
   * activation between the two is not missed.
   */
  async #follow(): Promise<void> {
    const { central, logger } = this.#options;
    const failed = (appId: string) => (error: unknown) =>
      logger.error({ app: appId, err: String(error) }, 'an active revision did not start');
    this.#unlisten = await central.listen?.(ACTIVATIONS_CHANNEL, (appId) => {
      void this.sync(appId).catch(failed(appId));
    });
    this.#poll = setInterval(() => {
      void (async () => {
        const { rows } = await central.query<{ app_id: string }>(
          'SELECT app_id FROM platform.active_deployments',
        );
        // A revision that already failed to start here is tried again on its next
        // announcement, not every poll.
        for (const { app_id: appId } of rows)
          await this.sync(appId, { retryFailed: false }).catch(failed(appId));
      })().catch((error: unknown) =>
        logger.error({ err: String(error) }, 'the active revisions could not be read'),
      );
    }, FOLLOW_POLL_MS);
    this.#poll.unref();
  }

  /**
   * Makes the revision the central store names active for `appId` the one this node serves
   * (nothing when it already is, or when none is named). Runs in the app's activation queue,
   * so it never reads the store between another activation's start and its record. With
   * `retryFailed` false, a revision that already failed to start on this node is left alone.
   */
  sync(appId: string, options: { readonly retryFailed?: boolean } = {}): Promise<void> {
    return this.#enqueue(appId, async () => {
      if (this.#closed) return;
      const { rows } = await this.#options.central.query<{ deployment_id: string }>(
        'SELECT deployment_id FROM platform.active_deployments WHERE app_id = $1',
        [appId],
      );
      const deploymentId = rows[0]?.deployment_id;
      if (deploymentId === undefined || this.active(appId) === deploymentId) return;
      if (options.retryFailed === false && this.#unloaded.get(appId) === deploymentId) return;
      try {
        await this.#activate(appId, deploymentId);
      } catch (error) {
        this.#unloaded.set(appId, deploymentId);
        throw error;
      }
    });
  }

  /**
   * Why the apps are not ready to serve, or `undefined` when they are: the active revisions are
   * still starting, or one of them did not start (and no later activation replaced it).
   */
  notReady(): string | undefined {
    if (!this.#loaded) return 'active revisions loading';
    const [appId, deploymentId] = [...this.#unloaded][0] ?? [];
    if (appId === undefined) return undefined;
    return `revision ${deploymentId} of ${appId} did not start`;
  }

  /** The id of the revision serving `appId`, if any. */
  active(appId: string): string | undefined {
    return this.#serving.get(appId)?.deploymentId;
  }

  /** The apps with a revision running. */
  appIds(): string[] {
    return [...this.#serving.keys()].sort();
  }

  /** How many apps have a revision running (readiness). */
  get size(): number {
    return this.#serving.size;
  }

  /**
   * Answers `request` with the active revision of `appId`; `undefined` when none serves it. A
   * request that arrives while the app's first revision is starting waits for it. The revision
   * counts the request as in flight until its answer's body is sent or abandoned, so a retired
   * revision stops only after its last answer is complete.
   */
  async fetch(appId: string, request: Request, env?: unknown): Promise<Response | undefined> {
    let serving = this.#serving.get(appId);
    const starting = this.#queues.get(appId);
    if (serving === undefined && starting !== undefined) {
      await starting.catch(() => undefined);
      serving = this.#serving.get(appId);
    }
    if (serving === undefined) return undefined;
    const one = serving;
    one.inFlight += 1;
    const done = () => {
      one.inFlight -= 1;
      if (one.inFlight === 0) for (const wake of one.idle.splice(0)) wake();
    };
    let response: Response;
    try {
      // The Node server's env carries what a WebSocket upgrade (realtime) needs.
      response = await one.broker.app.fetch(request, env as never);
    } catch (error) {
      done();
      throw error;
    }
    return whenBodyEnds(response, done);
  }

  /**
   * Starts the broker of revision `deploymentId` of `appId` from its folder, with its Functions'
   * processes running, and makes it the one that answers; the previous revision's broker drains
   * and stops. A revision that fails to start (a Function's process included) throws and leaves
   * the previous one serving.
   */
  activate(appId: string, deploymentId: string, record?: () => Promise<void>): Promise<void> {
    return this.#enqueue(appId, () => this.#activate(appId, deploymentId, record));
  }

  /** Runs `work` after the app's earlier activations and syncs, whether they failed or not. */
  #enqueue(appId: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#queues.get(appId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.#queues.set(appId, next);
    return next;
  }

  /**
   * `record`, when given, runs once the new revision has started and before it takes over: it
   * writes the activation to the central store; when it throws, the new revision stops and the
   * old one keeps serving.
   */
  async #activate(
    appId: string,
    deploymentId: string,
    record?: () => Promise<void>,
  ): Promise<void> {
    const old = this.#serving.get(appId);
    if (old?.deploymentId === deploymentId) {
      await record?.();
      return;
    }
    const { broker, manifest } = await this.#start(appId, deploymentId);
    if (record !== undefined) {
      try {
        await record();
      } catch (error) {
        await broker.close().catch(() => undefined);
        throw error;
      }
    }
    // The swap is one assignment: a request reads the map once, so it is answered wholly by
    // one revision.
    const held = await broker.hold.held();
    this.#serving.set(appId, { deploymentId, broker, manifest, held, inFlight: 0, idle: [] });
    this.#unloaded.delete(appId);
    this.#options.logger.info({ app: appId, deployment: deploymentId }, 'revision active');
    if (old !== undefined) this.#retire(appId, old);
  }

  /**
   * Keeps revision `deploymentId`'s folder on this node while it is in use (a deployment being
   * received, before the central store lists it; a revision draining), so no sweep removes it;
   * answers the function that ends the hold.
   */
  keepFolder(deploymentId: string): () => void {
    this.#inUse.set(deploymentId, (this.#inUse.get(deploymentId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.#inUse.get(deploymentId) ?? 1) - 1;
      if (left > 0) this.#inUse.set(deploymentId, left);
      else this.#inUse.delete(deploymentId);
    };
  }

  /**
   * Removes the folders of `appId`'s revisions that the central store no longer lists (pruned
   * through another node); a failure is logged and left for the next sweep.
   */
  async #sweep(appId: string): Promise<void> {
    const protect = new Set(this.#inUse.keys());
    const serving = this.#serving.get(appId)?.deploymentId;
    if (serving !== undefined) protect.add(serving);
    try {
      const removed = await removeUnlistedRevisions({
        central: this.#options.central,
        filesDir: this.#options.settings.filesDir,
        appId,
        protect,
      });
      if (removed.length > 0)
        this.#options.logger.info({ app: appId, removed }, 'removed revisions pruned elsewhere');
    } catch (error) {
      this.#options.logger.error({ app: appId, err: String(error) }, 'revisions not swept');
    }
  }

  /** Lets `old` answer what it holds, at most the drain bound, then stops it. */
  #retire(appId: string, old: Serving): void {
    const draining = this.keepFolder(old.deploymentId);
    const stopping = (async () => {
      if (old.inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => old.idle.push(resolve)),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, this.#options.settings.drainSeconds * 1000);
          }),
        ]);
        clearTimeout(timer);
      }
      await old.broker
        .close()
        .catch((error: unknown) =>
          this.#options.logger.error({ err: String(error) }, 'a retired revision did not close'),
        );
      draining();
      // The retired revision's folder goes once it is pruned; so do those pruned elsewhere.
      await this.#sweep(appId);
    })();
    this.#stopping.add(stopping);
    void stopping.then(() => this.#stopping.delete(stopping));
  }

  /**
   * The folder of the revision's files, unpacked from its archive in the central store when
   * this node has not got it yet (another node received the deployment). Unpacked beside it and
   * renamed into place, so a folder that exists is complete.
   */
  async #unpacked(appId: string, deploymentId: string): Promise<string> {
    const dir = revisionDir(this.#options.settings.filesDir, appId, deploymentId);
    if (existsSync(join(dir, 'platform.yaml'))) return dir;
    const { rows } = await this.#options.central.query<{ archive: Uint8Array }>(
      'SELECT archive FROM platform.deployment_archives WHERE deployment_id = $1',
      [deploymentId],
    );
    const archive = rows[0]?.archive;
    if (archive === undefined) {
      throw new Error(
        `Revision ${deploymentId} of ${appId} is not on this node and the central store has no archive of it.`,
      );
    }
    const part = `${dir}.part-${randomUUID()}`;
    try {
      await writeDeployment(await readDeployment(archive), part);
      await rm(dir, { recursive: true, force: true });
      await rename(part, dir);
    } finally {
      await rm(part, { recursive: true, force: true });
    }
    return dir;
  }

  /**
   * The apps with a revision running, as the organisation's integration calls reach them: each
   * call goes to the revision serving at that moment.
   */
  providers(): ProviderApp[] {
    return [...this.#serving]
      .filter(([, one]) => !one.held)
      .map(([appId, one]) =>
        providerApp(appId, one.manifest, () => {
          const now = this.#serving.get(appId);
          return now === undefined
            ? undefined
            : {
                manifest: now.manifest,
                invoker: now.broker.invoker,
                paused: heldOrPaused(now.broker.hold, () => now.broker.auth.appPaused()),
              };
        }),
      );
  }

  /**
   * The organisation's apps with the platform.yaml each serves, as a revision of `appId` with
   * `manifest` sees them: itself with its own, the others with their active revisions'.
   */
  #publishers(appId: string, manifest: Manifest): PublishingApp[] {
    return [
      { appId, manifest },
      ...[...this.#serving]
        .filter(([id, one]) => id !== appId && !one.held)
        .map(([id, one]) => ({ appId: id, manifest: one.manifest })),
    ];
  }

  async #start(
    appId: string,
    deploymentId: string,
  ): Promise<{ broker: Broker; manifest: Manifest }> {
    const { settings, central, logger } = this.#options;
    const dir = await this.#unpacked(appId, deploymentId);
    const manifest = manifestOf(await readFile(join(dir, 'platform.yaml'), 'utf8'));
    const databaseUrl = await ensureDatabase(settings.databaseUrl, appDatabaseName(appId));
    const routes = RouteTable.fromManifest(manifest);
    const frontend = new Frontend(dir);
    const print = (line: string) => logger.info({ app: appId, deployment: deploymentId }, line);
    const broker = await startBroker({
      appDir: dir,
      stateDir: appStateDir(settings.filesDir, appId),
      appId,
      central,
      secrets: this.#options.secrets.source(appId),
      sdkVersion: manifest.runtime.sdk.version,
      declared: declarationsOf(manifest),
      searches: manifest.data.search,
      realtime: manifest.realtime,
      inboundFunction: manifest.email.inbound?.function,
      jobs: { queues: manifest.queues, cron: manifest.cron, clock: this.#options.clock },
      auth: {
        visibility: manifest.visibility,
        print,
        appUrl: appUrlOf(settings.baseUrl, appId),
        clock: this.#options.clock,
        // The deployed apps are the organisation's apps: a sign-in at one of them carries over.
        peers: () =>
          this.appIds().map((id) => ({ appId: id, url: appUrlOf(settings.baseUrl, id) })),
        ...(this.#options.centralSignInAt
          ? { centralSignInAt: this.#options.centralSignInAt }
          : {}),
        // `platform login`'s credential of the app's owner or an administrator opens its
        // owner API, here and through `{base_url}`.
        accountAdmission: accountAdmission(this.#options.access, appId),
      },
      logWriter: print,
      databaseUrl,
      ...(this.#options.newApps ? { newApps: this.#options.newApps(appId) } : {}),
      // The app's files outlive its revisions: in the bucket, or in a folder of the app's own.
      fileStorage: appFileStorage(settings, appId),
      environment: settings.environment,
      ai: aiOptionsOf(settings.ai),
      mail: this.#options.mail?.(appId) ?? { kind: 'none' },
      allowNet: settings.allowNet,
      ...(this.#options.integrations
        ? {
            integrations: {
              organisation: this.#options.integrations,
              manifest,
              publishers: () => this.#publishers(appId, manifest),
            },
          }
        : {}),
      mount: (app, services) => {
        mountAppRoutes(app, { routes: () => routes, ...services });
        frontend.mount(app);
      },
    });
    try {
      // Started now, before the revision takes over: its first calls find them listening
      // instead of waiting for a Deno start each.
      await Promise.all(
        functionsOf(manifest).map((fn) =>
          broker.functions.addBundled(fn, join(dir, 'functions', `${fn.name}.js`), {
            start: true,
          }),
        ),
      );
    } catch (error) {
      await broker.close();
      throw error;
    }
    return { broker, manifest };
  }

  /**
   * What the metrics report of the apps (docs/production.md, "Metrics"): each active revision's
   * Function processes running, its jobs waiting per queue, and the integration event deliveries
   * pending for it.
   */
  async gauges(): Promise<AppGauges> {
    const functionProcesses = new Map<string, number>();
    const queueDepth: { app: string; queue: string; jobs: number }[] = [];
    await Promise.all(
      [...this.#serving].map(async ([appId, one]) => {
        const running = one.broker.invoker
          .list()
          .filter((fn) => fn.process.pid !== undefined).length;
        functionProcesses.set(appId, running);
        const { rows } = await one.broker.db.query<{ queue: string; jobs: string }>(
          `SELECT queue, count(*) AS jobs FROM platform.jobs
            WHERE kind = 'job' AND app_id = $1 AND state IN ('queued', 'retry_wait')
            GROUP BY queue`,
          [appId],
        );
        for (const row of rows)
          queueDepth.push({ app: appId, queue: row.queue, jobs: Number(row.jobs) });
      }),
    );
    const { rows } = await this.#options.central.query<{ app: string; pending: string }>(
      `SELECT consumer_app_id AS app, count(*) AS pending
         FROM platform.integration_event_deliveries WHERE state = 'pending'
        GROUP BY consumer_app_id`,
    );
    const deliveriesPending = new Map(rows.map((row) => [row.app, Number(row.pending)]));
    return { functionProcesses, queueDepth, deliveriesPending };
  }

  /** Stops every revision's broker, those draining included. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poll);
    await this.#unlisten?.().catch(() => undefined);
    const serving = [...this.#serving.values()];
    this.#serving.clear();
    await Promise.all(this.#queues.values()).catch(() => undefined);
    await Promise.all([
      ...serving.map((one) => one.broker.close().catch(() => undefined)),
      ...this.#stopping,
    ]);
  }
}

/** `response` with `end` called once its body has been read to its end, failed or been cancelled. */
function whenBodyEnds(response: Response, end: () => void): Response {
  const body = response.body;
  if (body === null) {
    end();
    return response;
  }
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    end();
  };
  const reader = body.getReader();
  const counted = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * `ctx.ai` of a deployed app: the service's endpoint, the offline AI only when the operator
 * chose it, and otherwise none (calls answer `FEATURE_NOT_AVAILABLE`), never the offline AI by
 * default as under `platform dev`.
 */
export function aiOptionsOf(ai: ServeSettings['ai']): AiOptions {
  if (ai === undefined) return { provider: 'none' };
  if (ai.provider === 'offline') return { provider: 'offline' };
  return {
    baseUrl: ai.baseUrl,
    apiKey: ai.apiKey,
    ...(ai.model ? { models: { text: ai.model, object: ai.model, vision: ai.model } } : {}),
  };
}

/** The manifest of a stored revision, checked when it was deployed. */
export function manifestOf(text: string): Manifest {
  const { manifest, errors } = parseManifest(text);
  if (manifest === undefined) {
    throw new Error(`A stored revision's platform.yaml no longer parses: ${errors[0]?.message}`);
  }
  return manifest;
}
