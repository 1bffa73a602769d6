import { resolve } from 'node:path';
import {
  type Diagnostic,
  formatDiagnostic,
  type Manifest,
  type OrganisationApp,
} from '@platform/schema/manifest';
import type { AiOptions } from '../ai/ai-config.ts';
import { Frontend } from '../api/frontend.ts';
import type { OrgPeer } from '../auth/auth-options.ts';
import { heldOrPaused } from '../backups/inspection-hold.ts';
import type { Database } from '../db/database.ts';
import { appDatabaseName, ensureDatabase } from '../db/database-per-app.ts';
import type { OpenedDatabase } from '../db/open-database.ts';
import { PgliteDatabase } from '../db/pglite-database.ts';
import { PostgresDatabase } from '../db/postgres-database.ts';
import { bundleDeclared } from '../functions/function-bundles.ts';
import { resolveSdk } from '../functions/sdk.ts';
import { dashboardPaths } from '../http/paths.ts';
import { SmtpListener } from '../inbound-mail/smtp-listener.ts';
import { providerApp } from '../integrations/app-integrations.ts';
import { type OrgIntegrations, openOrgIntegrations } from '../integrations/org-integrations.ts';
import type { ProviderApp } from '../integrations/provider-app.ts';
import type { Clock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import type { PublishingApp } from '../org/custom-integrations.ts';
import { loadAppId } from '../project/app-id.ts';
import {
  clearDevState,
  dashboardLinkKey,
  newDevToken,
  writeDevState,
} from '../project/dev-state.ts';
import { loadManifest, MANIFEST_FILE } from '../project/manifest.ts';
import { functionsOf } from './app-config.ts';
import { type FunctionStart, launchDevBroker } from './dev-broker.ts';
import { startDevCluster } from './dev-cluster.ts';
import { type DevDatabaseEngine, usesPrivateCluster } from './dev-database-engine.ts';
import { DevFront } from './dev-front.ts';
import { openCentralStore } from './open-central.ts';
import { AppReloader, describeError } from './reload.ts';
import { DevRestoredApps, removeRestoredApps } from './restored-apps.ts';
import { type Broker, type BrokerOptions, openAppDatabase } from './start-broker.ts';
import { stateDirOf } from './state-dir.ts';
import { Teardown } from './teardown.ts';
import { watchApp } from './watcher.ts';

/** How to run `platform dev`. */
export interface DevOptions {
  /** The app folder holding platform.yaml. */
  readonly appDir: string;
  /** Port on 127.0.0.1; `0` picks a free one. @default 0 */
  readonly port?: number;
  /** Port of the SMTP listener on 127.0.0.1 (inbound email); `0` picks a free one. @default 0 */
  readonly smtpPort?: number;
  /**
   * The app's id (an app of a workspace gets it from the workspace, which keeps ids unique).
   * @default the id kept in `.platform/app.json`
   */
  readonly appId?: string;
  /**
   * The host name of the app's URL: `<appId>.localhost` when a workspace serves several apps,
   * so that browsers keep each app's cookies apart (docs/organisations.md). @default 'localhost'
   */
  readonly hostName?: string;
  /** The dev token that opens the control plane (a workspace shares one). @default a new one */
  readonly devToken?: string;
  /**
   * The organisation's central store (a workspace shares one; the caller closes it).
   * @default one of the app's own, in `.platform/central` (docs/organisations.md)
   */
  readonly central?: Database;
  /** The apps of the organisation, this one included, for sign-in across them. @default none */
  readonly peers?: () => readonly OrgPeer[];
  /** Re-bundle changed Functions, reload platform.yaml, apply new migrations. @default true */
  readonly watch?: boolean;
  /** Where every line is printed. @default console.log */
  readonly logWriter?: LogWriter;
  /** Passed to `startBroker` (tests: a test identity, an in-memory database, a snapshot). */
  readonly authenticate?: BrokerOptions['authenticate'];
  readonly databaseUrl?: string | undefined;
  readonly snapshotPath?: string | undefined;
  readonly inMemory?: boolean;
  /**
   * Where the databases live when no PostgreSQL server is given: PGlite in `.platform/db` and
   * `.platform/central`, or a private PostgreSQL cluster in `.platform/cluster` holding the
   * central store and the app's database as `platform serve` lays them out
   * (docs/dev-database.md). @default `PLATFORM_DEV_DATABASE`, else 'pglite'
   */
  readonly database?: DevDatabaseEngine;
  /**
   * Hosts the Functions may reach besides the broker (`host` or `host:port`;
   * `platform dev --allow-net`). @default none
   */
  readonly allowNet?: readonly string[] | undefined;
  /**
   * When the Functions' processes start (`platform dev --start-functions`): `ready` in the
   * background once the app is ready, `call` on each Function's first call.
   * @default 'ready'
   */
  readonly startFunctions?: FunctionStart | undefined;
  /**
   * `production` serves the apps as production does (`platform dev --environment production`):
   * `ctx.environment` says so, integration calls reach the providers instead of answering
   * fakes, emitted events are delivered, and development-only tools refuse.
   * @default 'development'
   */
  readonly environment?: 'development' | 'production';
  /** Time source of sign-in, jobs and cron (tests advance it instead of waiting). @default the machine's */
  readonly clock?: Clock;
  /** The AI provider (docs/ai.md). @default the offline, deterministic AI */
  readonly ai?: AiOptions;
  /**
   * The organisation's other apps with the platform.yaml each serves: platform.yaml is checked
   * against them (an integration name another app publishes is an error; a slot no app serves
   * is a warning), and their contracts are listed at `/v1/apps/{appId}/custom-integrations`.
   * @default none: this app alone
   */
  readonly otherApps?: () => readonly PublishingApp[];
  /**
   * The organisation's integrations (a workspace shares one).
   * @default the app's own, with its own `.platform/credentials.key`
   */
  readonly integrations?: OrgIntegrations;
  /**
   * Cuts the start short (`platform dev` on Ctrl-C): at the next step the start stops, closes
   * what it had opened and rejects with the signal's reason. @default none
   */
  readonly signal?: AbortSignal;
  /**
   * What the app does, one line each (`platform dev` prints them unless `--quiet`): every request
   * answered (the Functions' own calls to the broker too with `verbose`), each job and cron
   * attempt run, each email sent or received. @default none
   */
  readonly activity?: { readonly write: LogWriter; readonly verbose?: boolean };
  /** Told each step of the start as it begins (`platform dev --verbose` prints them). @default none */
  readonly onStep?: (step: DevStartStep) => void;
  /**
   * Told, at most once per start, of work that takes seconds and happens once per machine
   * (`platform dev` prints it even without `--verbose`, so a first start is never silent).
   * @default none
   */
  readonly onPreparing?: (work: DevPreparation) => void;
}

/** Work of a first start on a machine that later starts skip, as {@link DevOptions.onPreparing} is told it. */
export type DevPreparation = 'the embedded database' | 'the private PostgreSQL cluster';

/** The steps of a start, in order, as {@link DevOptions.onStep} is told them. */
export type DevStartStep =
  | 'reading platform.yaml'
  | 'bundling the Functions'
  | 'opening the databases'
  | 'starting the broker'
  | 'listening for mail'
  | 'watching the app folder';

/** platform.yaml has errors: nothing was started. */
export class ManifestInvalidError extends Error {
  readonly errors: readonly Diagnostic[];
  constructor(errors: readonly Diagnostic[]) {
    super(`${MANIFEST_FILE} has ${errors.length} error(s)`);
    this.name = 'ManifestInvalidError';
    this.errors = errors;
  }
}

/** A running `platform dev`. */
export interface DevServer {
  /** The app's URL, `{app_url}`: `http://localhost:<port>`, or `http://<hostName>:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The SMTP listener receiving the app's mail (docs/email.md); bound once, like the port. */
  readonly smtp: { readonly port: number; readonly url: string };
  /** The app's id (docs/organisations.md). */
  readonly appId: string;
  /** The platform.yaml the app serves now. */
  readonly manifest: Manifest;
  /** The app as the organisation's integration calls reach it. */
  readonly provider: ProviderApp;
  /** The dev token of `.platform/dev.json`. */
  readonly devToken: string;
  /** Answers a request as the app's port does (restarts included), without a socket. */
  fetch(request: Request): Promise<Response>;
  /** The current broker (a changed platform.yaml starts a new one on the same port). */
  readonly broker: Broker;
  /** Milliseconds from the call to ready. */
  readonly readyMs: number;
  /**
   * The dashboard link (`/_platform/dashboard?key=<link key>`): opens it without signing in. The
   * key is derived from the dev token and is no bearer credential.
   */
  readonly dashboardUrl: string;
  /** Settles once every change seen so far has been applied (tests). */
  settled(): Promise<void>;
  /** Stops watching, every Function process, the server and the database. */
  close(): Promise<void>;
}

/**
 * Runs an app: validates platform.yaml (throws {@link ManifestInvalidError} on errors), starts
 * the broker with the manifest's SDK pin and declarations, bundles and starts every Function,
 * mounts the Function routes, the broker API and the frontend (`public/`), and watches the app.
 * A step that fails closes what the steps before it opened.
 *
 * @example
 * ```ts
 * const dev = await startDev({ appDir: 'examples/todo', port: 0 });
 * console.log(dev.url);
 * await dev.close();
 * ```
 */
export async function startDev(options: DevOptions): Promise<DevServer> {
  const started = performance.now();
  const appDir = resolve(options.appDir);
  const print = options.logWriter ?? ((line: string) => console.log(line));
  // Each step first checks that the start was not cut short, then says what it begins.
  const step = (name: DevStartStep) => {
    options.signal?.throwIfAborted();
    options.onStep?.(name);
  };
  step('reading platform.yaml');
  // The central store and the app's database may both find no prepared snapshot: one line.
  let preparing = false;
  const onPreparing = (work: DevPreparation = 'the embedded database') => {
    if (preparing) return;
    preparing = true;
    options.onPreparing?.(work);
  };
  const others = (): OrganisationApp[] =>
    (options.otherApps?.() ?? []).map((one) => ({ name: one.appId, manifest: one.manifest }));
  const manifest = await validManifest(appDir, print, others());
  const devToken = options.devToken ?? newDevToken();
  const appId = options.appId ?? (await loadAppId(appDir));
  const frontend = new Frontend(appDir);
  const teardown = new Teardown((error) => print(describeError(error)));
  return teardown.run(async () => {
    // Closed last; it removes the state file only when this start wrote it.
    teardown.add(() => clearDevState(appDir, devToken));
    // Bound once: a platform.yaml restart never refuses a connection.
    const { activity } = options;
    const front = await DevFront.listen(
      options.port ?? 0,
      activity && { write: activity.write, runtime: activity.verbose ?? false },
    );
    teardown.add(() => front.close());
    step('bundling the Functions');
    // The Functions need no database: they are bundled while the databases open (which make
    // `.platform` as it must be; esbuild makes the bundles' folder in it), and the broker's
    // deployments find them unchanged in the bundle cache. A failure here is only waited for:
    // the deployment bundles that Function again and reports it. The broker's start may remove
    // the bundles (finishing an account deletion), so it begins only once they are written,
    // never while one is; the cache then finds them gone and they are made again.
    const bundled = bundleDeclared(
      {
        appDir,
        stateDir: stateDirOf(appDir),
        sdk: resolveSdk(appDir, manifest.runtime.sdk.version),
      },
      functionsOf(manifest),
    );
    const written = Promise.allSettled(bundled).then(() => undefined);
    teardown.add(() => written);
    step('opening the databases');
    // The private cluster closes after the databases on it, so it is added before them.
    let databaseUrl = options.databaseUrl;
    let centralUrl = options.databaseUrl;
    if (options.central === undefined && usesPrivateCluster(options)) {
      const cluster = await startDevCluster(appDir, options.snapshotPath, () =>
        onPreparing('the private PostgreSQL cluster'),
      );
      teardown.add(() => cluster.close());
      await cluster.lock.announce(front.url);
      centralUrl = cluster.url;
      databaseUrl = await ensureDatabase(cluster.url, appDatabaseName(appId));
    }
    // The central store and the app's database open side by side, each on a thread of its own
    // when embedded. The first broker takes the app's database over; until then it is closed
    // with the rest when the start fails.
    const [centralOpened, databaseOpened] = await Promise.allSettled([
      options.central ??
        openCentralStore({
          dir: appDir,
          databaseUrl: centralUrl,
          snapshotPath: options.snapshotPath,
          onPreparing,
          ...(options.inMemory ? { inMemory: true } : {}),
        }),
      openAppDatabase({ ...options, appDir, databaseUrl, onPreparing }),
    ]);
    let database = databaseOpened.status === 'fulfilled' ? databaseOpened.value : undefined;
    teardown.add(() => database?.db.close());
    if (centralOpened.status === 'rejected') throw centralOpened.reason;
    const central = centralOpened.value;
    if (options.central === undefined) {
      teardown.add(() => central.close());
      // A second start on this folder names this URL in its refusal, as the app's database does.
      if (central instanceof PgliteDatabase) await central.lock?.announce(front.url);
    }
    if (databaseOpened.status === 'rejected') throw databaseOpened.reason;
    options.signal?.throwIfAborted();
    const appUrl = `http://${options.hostName ?? 'localhost'}:${front.port}`;
    const context = {
      ...options,
      // A restart for a changed platform.yaml opens the app's database where this start did.
      databaseUrl,
      appDir,
      appId,
      appUrl,
      central,
      print,
      devToken,
      frontend,
      front,
    };
    // This app's contract as it serves now, and the other apps' as they serve now.
    let app: AppReloader | undefined;
    const publishers = (): PublishingApp[] => [
      { appId, manifest: app?.manifest ?? manifest },
      ...(options.otherApps?.() ?? []),
    ];
    // The app as the organisation's integration calls reach it, whichever broker serves now.
    const self = providerApp(appId, manifest, () => {
      const serving = app?.broker;
      return serving && app
        ? {
            manifest: app.manifest,
            invoker: serving.invoker,
            paused: heldOrPaused(serving.hold, () => serving.auth.appPaused()),
          }
        : undefined;
    });
    const integrations =
      options.integrations ??
      (await openOrgIntegrations({
        central,
        dir: options.inMemory ? undefined : appDir,
        apps: () => [self],
        baseUrl: () => appUrl,
        print,
        activity: activity?.write,
        clock: options.clock,
        ...(options.environment ? { environment: options.environment } : {}),
      }));
    // Apps restored from this app's backups beside it (`platform backups restore --to`): an
    // earlier start's are removed, this start's run until it stops.
    const liveUrl =
      database?.db instanceof PostgresDatabase ? database.db.connectionString : undefined;
    const organisationIds = () => [
      appId,
      ...(options.peers?.() ?? []).map((peer) => peer.appId),
      ...(options.otherApps?.() ?? []).map((other) => other.appId),
    ];
    await removeRestoredApps(appDir, liveUrl, organisationIds());
    const restored: DevRestoredApps = new DevRestoredApps({
      appDir,
      taken: organisationIds,
      databaseUrl: liveUrl,
      inMemory: options.inMemory ?? false,
      launch: async (restoredId, stateDir, opened) => {
        const restoredFront = await DevFront.listen(
          0,
          activity && { write: activity.write, runtime: activity.verbose ?? false },
        );
        try {
          // Its own host name: a browser keeps its cookies apart from the live app's.
          const url = `http://${restoredId}.localhost:${restoredFront.port}`;
          const broker = await launchDevBroker(
            {
              ...context,
              appId: restoredId,
              appUrl: url,
              front: restoredFront,
              stateDir,
              databaseUrl: undefined,
              print: (line) => print(`[${restoredId}] ${line}`),
              publishers,
              integrations,
            },
            app?.manifest ?? manifest,
            opened,
          );
          return {
            url,
            close: async () => {
              await broker.close();
              await restoredFront.close();
            },
          };
        } catch (error) {
          await restoredFront.close();
          throw error;
        }
      },
    });
    teardown.add(() => restored.close());
    const launch = (next: Manifest, opened?: OpenedDatabase) =>
      launchDevBroker({ ...context, publishers, integrations, newApps: restored }, next, opened);
    await written;
    step('starting the broker');
    const first = database;
    database = undefined;
    const broker = await launch(manifest, first);
    const pause = () => front.pause();
    app = new AppReloader({
      appDir,
      print,
      frontend,
      launch,
      pause,
      manifest,
      broker,
      organisation: others,
    });
    const reloader = app;
    teardown.add(() => app.close());
    step('listening for mail');
    if (options.integrations === undefined) {
      // A single app's own integrations: its sync schedule and event deliveries run while it serves.
      integrations.start();
      teardown.add(() => integrations.stop());
    }
    // Bound once, like the port, in front of whichever broker serves; a delivery that a
    // restart cuts off answers 451, so the sender tries again.
    const smtp = await SmtpListener.listen({
      port: options.smtpPort ?? 0,
      target: () => app.broker.inboundMail,
      onError: (error) => print(describeError(error)),
      log: print,
    });
    teardown.add(() => smtp.close());
    // Node's resolver knows no `*.localhost`: the command line reaches the app as `localhost`.
    await writeDevState(appDir, { url: front.url, appId, pid: process.pid, token: devToken });
    if (options.watch !== false) {
      step('watching the app folder');
      const watcher = watchApp(appDir, (paths) => app.changed(paths));
      teardown.add(() => watcher.close());
      await watcher.ready;
    }
    options.signal?.throwIfAborted();
    return {
      url: appUrl,
      port: front.port,
      smtp: { port: smtp.port, url: smtp.url },
      appId,
      devToken,
      fetch: (request) => front.fetch(request),
      get broker() {
        return reloader.broker;
      },
      get manifest() {
        return reloader.manifest;
      },
      provider: self,
      readyMs: Math.round(performance.now() - started),
      dashboardUrl: `${appUrl}${dashboardPaths.page}?key=${dashboardLinkKey(devToken)}`,
      settled: async () => {
        // Let the watcher's debounce deliver pending events before waiting on the reloads.
        await new Promise((r) => setTimeout(r, 250));
        await app.settled();
      },
      close: () => teardown.close(),
    };
  });
}

/** The app's platform.yaml; its warnings are printed, its errors thrown. */
async function validManifest(
  appDir: string,
  print: LogWriter,
  organisation: readonly OrganisationApp[],
): Promise<Manifest> {
  const loaded = await loadManifest(appDir, organisation.length > 0 ? organisation : undefined);
  if (!loaded.manifest || loaded.errors.length > 0) throw new ManifestInvalidError(loaded.errors);
  for (const warning of loaded.warnings) print(formatDiagnostic(warning, MANIFEST_FILE));
  return loaded.manifest;
}
