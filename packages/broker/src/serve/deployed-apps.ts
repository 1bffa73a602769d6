import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Manifest, parseManifest } from '@platform/schema/manifest';
import type { AiOptions } from '../ai/ai-config.ts';
import { mountAppRoutes } from '../api/app-routes.ts';
import { Frontend } from '../api/frontend.ts';
import { RouteTable } from '../api/route-table.ts';
import { declarationsOf, functionsOf } from '../app/app-config.ts';
import { type Broker, startBroker } from '../app/start-broker.ts';
import type { OrgPeer } from '../auth/auth-options.ts';
import type { Database } from '../db/database.ts';
import { appDatabaseName, ensureDatabase } from '../db/database-per-app.ts';
import type { Clock } from '../kernel/clock.ts';
import type { ServiceLogger } from '../observability/logger.ts';
import type { AppGauges } from '../observability/metrics.ts';
import type { ServeSettings } from './serve-settings.ts';

/** The folder under the files folder where revisions are kept: never an app id (those have no `_`). */
export const DEPLOYMENTS_FOLDER = '_deployments';

/** The folder of the apps' state that outlives their revisions: never an app id either. */
export const APP_STATE_FOLDER = '_app-state';

/**
 * The state of app `appId` that every revision shares (its secrets, its Web Push keys, the
 * Functions' Deno cache), beside the revisions rather than in one of them.
 */
export const appStateDir = (filesDir: string, appId: string): string =>
  join(filesDir, APP_STATE_FOLDER, appId);

/** The folder of one revision's unpacked files. */
export const revisionDir = (filesDir: string, appId: string, deploymentId: string): string =>
  join(filesDir, DEPLOYMENTS_FOLDER, appId, deploymentId);

/** `{app_url}` of `appId`: `<scheme>://<app>.<base domain>[:port]` of the service's base URL. */
export function appUrlOf(baseUrl: string, appId: string): string {
  const base = new URL(baseUrl);
  return `${base.protocol}//${appId}.${base.host}`;
}

/** One app's revision being served. */
interface Serving {
  readonly deploymentId: string;
  readonly broker: Broker;
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
  /**
   * The organisation's central sign-in, where each app's sign-in sends a browser without a
   * session first. @default none: each app signs in on its own
   */
  readonly centralSignInAt?: OrgPeer;
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
  /** Apps whose active revision failed to start with the service. */
  readonly #unloaded = new Map<string, string>();

  constructor(options: DeployedAppsOptions) {
    this.#options = options;
  }

  /**
   * Starts the active revision of every app the central store names; a failure is logged and
   * keeps the service not ready ({@link DeployedApps.notReady}) until that app is activated.
   */
  startActive(): Promise<void> {
    this.#loading ??= (async () => {
      const { rows } = await this.#options.central.query<{
        app_id: string;
        deployment_id: string;
      }>('SELECT app_id, deployment_id FROM platform.active_deployments ORDER BY app_id');
      await Promise.all(
        rows.map((row) =>
          this.activate(row.app_id, row.deployment_id).catch((error: unknown) => {
            this.#unloaded.set(row.app_id, row.deployment_id);
            this.#options.logger.error(
              { app: row.app_id, deployment: row.deployment_id, err: String(error) },
              'an active revision did not start',
            );
          }),
        ),
      );
      this.#loaded = true;
    })();
    return this.#loading;
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
  activate(appId: string, deploymentId: string): Promise<void> {
    const previous = this.#queues.get(appId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.#activate(appId, deploymentId));
    this.#queues.set(appId, next);
    return next;
  }

  async #activate(appId: string, deploymentId: string): Promise<void> {
    const old = this.#serving.get(appId);
    if (old?.deploymentId === deploymentId) return;
    const broker = await this.#start(appId, deploymentId);
    // The swap is one assignment: a request reads the map once, so it is answered wholly by
    // one revision.
    this.#serving.set(appId, { deploymentId, broker, inFlight: 0, idle: [] });
    this.#unloaded.delete(appId);
    this.#options.logger.info({ app: appId, deployment: deploymentId }, 'revision active');
    if (old !== undefined) this.#retire(old);
  }

  /** Lets `old` answer what it holds, at most the drain bound, then stops it. */
  #retire(old: Serving): void {
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
    })();
    this.#stopping.add(stopping);
    void stopping.then(() => this.#stopping.delete(stopping));
  }

  async #start(appId: string, deploymentId: string): Promise<Broker> {
    const { settings, central, logger } = this.#options;
    const dir = revisionDir(settings.filesDir, appId, deploymentId);
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
      },
      logWriter: print,
      databaseUrl,
      // The app's files outlive its revisions: in the bucket, or in a folder of the app's own.
      fileStorage: settings.objectStorage
        ? { kind: 's3', ...settings.objectStorage }
        : { kind: 'folder', dir: join(settings.filesDir, 'files', appId) },
      environment: settings.environment,
      ai: aiOptionsOf(settings.ai),
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
    return broker;
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
