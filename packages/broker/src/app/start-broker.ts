import { resolve } from 'node:path';
import type { Hono } from 'hono';
import type { AiService } from '../ai/ai-service.ts';
import type { AuthService } from '../auth/auth-service.ts';
import type { InspectionHold } from '../backups/inspection-hold.ts';
import type { DataService } from '../data/data-service.ts';
import type { Database } from '../db/database.ts';
import type { MigrationReport } from '../db/migrations.ts';
import { type OpenedDatabase, openDatabase } from '../db/open-database.ts';
import type { AccountDeletions } from '../deletion/account-deletions.ts';
import { erasuresOf, startFeatures } from '../feature/compose.ts';
import type { FileService } from '../files/file-service.ts';
import type { BundleResult } from '../functions/bundler.ts';
import type {
  FunctionDeclaration,
  FunctionDeployments,
} from '../functions/function-deployments.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { listenBroker, type RunningServer } from '../http/serve.ts';
import type { InboundMail } from '../inbound-mail/inbound-mail.ts';
import type { BrokerJobs } from '../jobs/start-jobs.ts';
import type { LogSink } from '../logs/log-sink.ts';
import { printableError } from '../logs/printable.ts';
import type { Outbox } from '../outbox/outbox.ts';
import type { PushService } from '../push/push-service.ts';
import type { Realtime } from '../realtime/realtime-feature.ts';
import type { SearchService } from '../search/search-service.ts';
import { createBrokerApp } from './broker-app.ts';
import { buildBrokerBase } from './broker-base.ts';
import { type BrokerOptions, resolveBrokerOptions } from './broker-options.ts';
import { brokerFeatures } from './features.ts';
import { platformSchema } from './platform-schema.ts';
import { ensureOwnStateDir, ensureStateDir } from './state-dir.ts';
import { Teardown } from './teardown.ts';

export type { BrokerOptions } from './broker-options.ts';

/** A running broker. */
export interface Broker {
  /** The app's id (docs/organisations.md). */
  readonly appId: string;
  readonly app: Hono<BrokerEnv>;
  readonly server: RunningServer;
  readonly db: Database;
  /** Where accounts, verifiers and email links live: the central store, or {@link Broker.db}. */
  readonly central: Database;
  readonly data: DataService;
  readonly files: FileService;
  readonly logs: LogSink;
  readonly outbox: Outbox;
  /** Received mail: delivers messages to the inbound email Function and lists them. */
  readonly inboundMail: InboundMail;
  /** Web Push: VAPID keys, subscriptions, `notifications.send`, the local push service. */
  readonly push: PushService;
  readonly invoker: FunctionInvoker;
  /**
   * The declared searches of `data.search`; `undefined` when platform.yaml declares none. After
   * migrations ran again, {@link SearchService.invalidate} it so its database objects and column
   * types are read afresh.
   */
  readonly search: SearchService | undefined;
  /** The job service, its worker and the cron scheduler. */
  readonly jobs: BrokerJobs;
  /** Accounts, sessions, grants and app access tokens. */
  readonly auth: AuthService;
  /** Whether the app is a copy restored from a backup, held for inspection (docs/backups.md). */
  readonly hold: InspectionHold;
  /** Account deletions: this app's part of each, resumed after a stop (spec 3.5). */
  readonly deletions: AccountDeletions;
  /** `ctx.ai` and its recent calls. */
  readonly ai: AiService;
  /** Realtime: channels, presence and database changes over WebSockets (docs/realtime.md). */
  readonly realtime: Realtime;
  readonly migrations: MigrationReport;
  /** Milliseconds the database took to open, bootstrap and migrate. */
  readonly dbMilliseconds: number;
  /**
   * Bundles a Function and (re)starts its process; a bundling failure throws with file and line
   * and leaves a running previous version in place. Resolves to the bundle (its `inputs` for
   * watch mode).
   */
  addFunction(fn: FunctionDeclaration): Promise<BundleResult>;
  /** Stops a Function's process and forgets it. */
  removeFunction(name: string): Promise<void>;
  /** The deployed Functions: what {@link Broker.addFunction} adds to, and what watch mode swaps. */
  readonly functions: FunctionDeployments;
  /** Stops jobs, every Function process, the server and the database. */
  close(): Promise<void>;
}

type AppDatabaseOptions = Pick<
  BrokerOptions,
  'appDir' | 'databaseUrl' | 'inMemory' | 'snapshotPath'
> & {
  /** Told when the embedded database must be prepared from nothing on this machine (once). */
  readonly onPreparing?: (() => void) | undefined;
};

/**
 * Opens the app's database as {@link startBroker} does when it is given none: PGlite in
 * `<appDir>/.platform/db` or the PostgreSQL of `databaseUrl`, with the platform schema and the
 * app's migrations. Start the broker with it by {@link startBrokerWith}.
 */
export async function openAppDatabase(options: AppDatabaseOptions): Promise<OpenedDatabase> {
  const appDir = resolve(options.appDir);
  await ensureStateDir(appDir);
  return openDatabaseIn(appDir, options);
}

/** {@link openAppDatabase} for a folder whose `.platform` is made already. */
function openDatabaseIn(appDir: string, options: AppDatabaseOptions): Promise<OpenedDatabase> {
  return openDatabase({
    appDir,
    databaseUrl: options.databaseUrl,
    inMemory: options.inMemory ?? false,
    snapshotPath: options.snapshotPath,
    platformSchema,
    onPreparing: options.onPreparing,
  });
}

/**
 * Starts the local broker for one app: the database (bootstrapped and migrated), the services
 * behind the runtime contract, the HTTP server, and a Function runner. `platform dev` builds on
 * this; tests use it directly. A step that fails closes what the steps before it opened.
 *
 * @example
 * ```ts
 * const broker = await startBroker({ appDir: 'examples/todos', sdkVersion: '2.6.0' });
 * await broker.addFunction({ name: 'listTodos', entrypoint: 'functions/list-todos.ts', access: 'user' });
 * console.log(broker.server.url);
 * ```
 */
export function startBroker(options: BrokerOptions): Promise<Broker> {
  return startBrokerWith(options);
}

/**
 * {@link startBroker} with the app's database opened already by {@link openAppDatabase}, so the
 * caller can open it while it opens something else (`platform dev` opens it beside the central
 * store). The broker owns `given` from then on and closes it, also when its start fails.
 */
export async function startBrokerWith(
  options: BrokerOptions,
  given?: OpenedDatabase,
): Promise<Broker> {
  const writer = options.logWriter ?? ((line: string) => console.log(line));
  const teardown = new Teardown((error) => writer(`broker close error: ${printableError(error)}`));
  return teardown.run(async () => {
    if (given) teardown.add(() => given.db.close());
    const stateDir =
      options.stateDir === undefined
        ? await ensureStateDir(resolve(options.appDir))
        : await ensureOwnStateDir(resolve(options.stateDir));
    const o = await resolveBrokerOptions(options);
    const opened = given ?? (await openDatabaseIn(o.appDir, o));
    const { db } = opened;
    if (!given) teardown.add(() => db.close());
    // The port is bound before the services are built rather than learnt when serving at the
    // end: the Function runner and the invocations' broker URL then take it as a constant. A
    // request arriving meanwhile waits for `listener.serve(app)` below.
    const listener = o.listener ?? (await listenBroker({ port: o.port ?? 0 }));
    teardown.add(() => listener.close());
    // A second start on this data directory names this URL in its refusal.
    await opened.lock?.announce(listener.url);
    const registry = brokerFeatures(o, listener.url);
    const erasures = erasuresOf(registry);
    const base = await buildBrokerBase(o, { stateDir, db, listener, teardown, erasures });
    const features = await startFeatures(registry, base);
    const { services } = features;
    const authenticate = o.authenticate ?? services.auth.authenticate;
    // A job's file grant is its enqueuing user's delegation and ends when they lose access to
    // the app; like admission, only sign-in's own identities can be judged.
    if (o.authenticate === undefined) {
      services.files.useDelegatorAccess((userId) => services.auth.stillAdmits(userId));
    }
    const app = createBrokerApp(features, base, {
      authenticate,
      admission: o.authenticate === undefined,
      reportError: (error, requestId) =>
        writer(`broker error ${requestId}: ${printableError(error)}`),
    });
    o.mount?.(app, { invoker: base.invoker, authenticate });
    const { data, files, outbox, inboundMail, push, search, jobs, auth, deletions, ai } = services;
    return {
      ...{ data, files, outbox, inboundMail, push, search, jobs, auth, deletions, ai },
      realtime: services.realtime,
      hold: services.hold,
      appId: o.appId,
      app,
      server: listener.serve(app),
      db,
      central: base.central,
      logs: base.logs,
      invoker: base.invoker,
      migrations: opened.migrations,
      dbMilliseconds: opened.milliseconds,
      functions: base.functions,
      addFunction: (fn) => base.functions.add(fn),
      removeFunction: (name) => base.functions.remove(name),
      close: () => teardown.close(),
    };
  });
}
