import { join, resolve } from 'node:path';
import type { Declarations } from '@platform/schema/contract';
import type { SearchDeclaration } from '@platform/schema/manifest';
import type { Hono } from 'hono';
import { type AiOptions, createAiProvider } from '../ai/ai-config.ts';
import { AiService } from '../ai/ai-service.ts';
import type { Authenticate } from '../api/rest-routes.ts';
import type { AppIntegrationCalls, AppIntegrationEmit } from '../api/runtime-routes.ts';
import { type AuthOptions, resolveAuthOptions } from '../auth/auth-options.ts';
import { AuthService } from '../auth/auth-service.ts';
import { moveAccountsToCentral, moveGrantsToCentral } from '../auth/move-accounts.ts';
import { DataService } from '../data/data-service.ts';
import type { Database } from '../db/database.ts';
import { applyMigrations, type MigrationReport } from '../db/migrations.ts';
import { type OpenedDatabase, openDatabase } from '../db/open-database.ts';
import { AccountDeletions } from '../deletion/account-deletions.ts';
import { FileService } from '../files/file-service.ts';
import type { BundleResult } from '../functions/bundler.ts';
import {
  type FunctionDeclaration,
  FunctionDeployments,
} from '../functions/function-deployments.ts';
import { InvocationTokens } from '../functions/invocation-tokens.ts';
import { FunctionInvoker } from '../functions/invoker.ts';
import { resolveSdk, type SdkSource } from '../functions/sdk.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { type BrokerListener, listenBroker, type RunningServer } from '../http/serve.ts';
import { devMailDomain, InboundAddresses } from '../inbound-mail/addresses.ts';
import { InboundMail } from '../inbound-mail/inbound-mail.ts';
import { localScope } from '../jobs/job-service.ts';
import { systemClock } from '../kernel/clock.ts';
import { LogSink, type LogWriter } from '../logs/log-sink.ts';
import { printableError } from '../logs/printable.ts';
import { Redactor } from '../logs/redactor.ts';
import { Onboarding } from '../onboarding/onboarding.ts';
import { centralAuthority } from '../org/authority.ts';
import { Memberships } from '../org/memberships.ts';
import { Outbox } from '../outbox/outbox.ts';
import { loadAppId } from '../project/app-id.ts';
import { PushService } from '../push/push-service.ts';
import { sdkSearchDeclarations } from '../search/search-options.ts';
import { SearchService } from '../search/search-service.ts';
import { SecretStore } from '../secrets/secret-store.ts';
import { createBrokerApp } from './broker-app.ts';
import { platformSchema } from './platform-schema.ts';
import { type BrokerJobs, type BrokerJobsOptions, startBrokerJobs } from './start-jobs.ts';
import { ensureStateDir } from './state-dir.ts';
import { Teardown } from './teardown.ts';

/** How to start a broker for one app. */
export interface BrokerOptions {
  /** The app folder (holds `migrations/`, `functions/`, and the broker's `.platform/`). */
  readonly appDir: string;
  /** Port on 127.0.0.1; `0` picks a free one. @default 0 */
  readonly port?: number;
  /**
   * The app's id in `/v1/apps/{appId}/...`, sessions, tokens and jobs.
   * @default `auth.appId`, else the id kept in `.platform/app.json` (docs/organisations.md)
   */
  readonly appId?: string;
  /**
   * A port already bound to serve on instead of `port` (`platform dev` keeps one across
   * restarts); the broker's close calls its `close()`.
   */
  readonly listener?: BrokerListener;
  /** `runtime.sdk.version` of platform.yaml. */
  readonly sdkVersion: string;
  /** Secret names, searches and email aliases platform.yaml declares. */
  readonly declared?: Declarations;
  /**
   * The organisation's central store (docs/organisations.md): accounts, password verifiers and
   * email links live there, never in the app's database. The caller opens and closes it.
   * @default the app's own database (a broker started alone)
   */
  readonly central?: Database;
  /** A PostgreSQL URL instead of PGlite. @default process.env.DATABASE_URL */
  readonly databaseUrl?: string | undefined;
  /** Keep PGlite in memory (tests only). */
  readonly inMemory?: boolean;
  /** Snapshot of a fresh cluster, to skip initdb (see `defaultSnapshotPath`). */
  readonly snapshotPath?: string | undefined;
  /**
   * Hosts the app's Functions may reach besides the broker (`host` or `host:port`), such as an
   * API an integration calls. @default none
   */
  readonly allowNet?: readonly string[] | undefined;
  /**
   * How long a Function's process runs without a call before it stops (the next call starts it
   * again). @default 120000 (two minutes)
   */
  readonly functionIdleMs?: number | undefined;
  /** What `ctx.environment` tells the Functions. @default 'development' */
  readonly environment?: 'development' | 'production';
  /** Where log lines and Function output are printed. @default console.log */
  readonly logWriter?: LogWriter;
  /**
   * Replaces the identity of browser and app-token requests (tests: a header identity). It also
   * turns off the private-app admission, which only knows sign-in's own identities.
   * @default sign-in: sessions, access JWTs and app access tokens (docs/auth.md)
   */
  readonly authenticate?: Authenticate;
  /** Visibility, owner, registration, clock and limits of sign-in (docs/auth.md). */
  readonly auth?: AuthOptions;
  /** Adds routes after the broker's own (`platform dev`: app routes, frontend), before serving. */
  readonly mount?: (
    app: Hono<BrokerEnv>,
    services: { invoker: FunctionInvoker; authenticate: Authenticate },
  ) => void;
  /** `data.search` declarations of platform.yaml (docs/search.md). */
  readonly searches?: readonly SearchDeclaration[];
  /** Queues, cron schedules and worker settings (docs/jobs.md). */
  readonly jobs?: BrokerJobsOptions;
  /** The AI provider and its models (docs/ai.md). @default the offline, deterministic AI */
  readonly ai?: AiOptions;
  /**
   * `email.inbound.function` of platform.yaml: the system Function that receives mail sent to
   * the app's addresses (the `emailAliases` of `declared` at `<app folder>.localhost`,
   * docs/email.md). @default none: the app takes no mail
   */
  readonly inboundFunction?: string | undefined;
  /**
   * `ctx.integrations.use(slot).call(...)` of the app's Functions (docs/integrations.md).
   * @default none: the call route answers FEATURE_NOT_AVAILABLE
   */
  readonly integrations?: AppIntegrationCalls;
  /** `ctx.integration.emit` of the app's integration Functions. @default FEATURE_NOT_AVAILABLE */
  readonly integrationEmit?: AppIntegrationEmit;
}

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
  /** Account deletions: this app's part of each, resumed after a stop (spec 3.5). */
  readonly deletions: AccountDeletions;
  /** `ctx.ai` and its recent calls. */
  readonly ai: AiService;
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

const emptyDeclarations: Declarations = { secrets: [], searches: {}, emailAliases: [] };

type AppDatabaseOptions = Pick<
  BrokerOptions,
  'appDir' | 'databaseUrl' | 'inMemory' | 'snapshotPath'
>;

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
  const appDir = resolve(options.appDir);
  const writer = options.logWriter ?? ((line: string) => console.log(line));
  const teardown = new Teardown((error) => writer(`broker close error: ${stackOf(error)}`));
  return teardown.run(async () => {
    if (given) teardown.add(() => given.db.close());
    const stateDir = await ensureStateDir(appDir);
    const appId = options.appId ?? options.auth?.appId ?? (await loadAppId(appDir));
    const sdk: SdkSource = resolveSdk(appDir, options.sdkVersion);
    const opened = given ?? (await openDatabaseIn(appDir, options));
    const { db } = opened;
    if (!given) teardown.add(() => db.close());
    // The port is bound before the services are built rather than learnt when serving at the
    // end: the Function runner and the invocations' broker URL then take it as a constant. A
    // request arriving meanwhile waits for `listener.serve(app)` below.
    const listener = options.listener ?? (await listenBroker({ port: options.port ?? 0 }));
    teardown.add(() => listener.close());
    // A second start on this data directory names this URL in its refusal.
    await opened.lock?.announce(listener.url);
    // One redactor for log entries, Function output, Function errors and jobs' stored errors.
    // It follows the secrets file, and a value once known stays redacted until the broker
    // stops: a Function may still hold a value that was removed from the file.
    const redactor = new Redactor();
    const logs = new LogSink({ writer, redactor });
    const secrets = new SecretStore(join(stateDir, 'secrets.json'));
    const known = new Set<string>();
    secrets.onChange((values) => {
      for (const value of values) known.add(value);
      redactor.set(known);
    });
    // The AI key, endpoint and model names are redacted like secrets wherever output is printed.
    const aiProvider = await createAiProvider(appDir, options.ai);
    for (const value of aiProvider.confidential) known.add(value);
    redactor.set(known);
    await secrets.values();
    teardown.add(secrets.watch());
    const data = new DataService(db);
    // Delegated file grants expire by the clock the job service stamps them with.
    const files = new FileService(db, join(stateDir, 'files'), { clock: options.jobs?.clock });
    // Temp files and empty folders of writes that a full disk or a crash interrupted.
    await files.blobs.sweep().catch((error) => writer(`WARN  files sweep: ${stackOf(error)}`));
    const outbox = new Outbox(db);
    const ai = new AiService({
      provider: aiProvider,
      files,
      logs,
      ...(options.ai?.timeoutMs === undefined ? {} : { timeoutMs: options.ai.timeoutMs }),
      showContent: options.ai?.showContent === true,
    });
    if (options.central !== undefined && options.central !== db) {
      const move = await moveAccountsToCentral(db, options.central);
      if (move.moved > 0) {
        writer(`Moved ${move.moved} account(s) of this app into the organisation's central store.`);
      }
      for (const email of move.clashes) {
        writer(
          `WARN  ${email} already had an account in the central store; this app's rows owned by its old account id keep that id.`,
        );
      }
      const grants = await moveGrantsToCentral(db, options.central);
      if (grants > 0) {
        writer(
          `Moved ${grants} access grant(s) of this app into the organisation's central store.`,
        );
      }
    }
    // Account deletions (spec 3.5). This app's part of a deletion that a stop interrupted is
    // finished before sign-in makes the owner's account again and the app is served anew.
    let forgetOwner = () => {};
    const deletions = new AccountDeletions({
      central: options.central ?? db,
      db,
      appId,
      stateDir,
      appIds: () => (options.auth?.peers?.() ?? []).map((peer) => peer.appId),
      outbox,
      clock: options.auth?.clock ?? systemClock,
      onDeleted: () => forgetOwner(),
      print: writer,
    });
    if (await deletions.finishOwnPart()) {
      await applyMigrations(db, join(appDir, 'migrations'));
      writer("The app was deleted with its owner's account; it begins anew from its folder.");
    }
    // An organisation's central store holds the app's authority facts; the app registers itself.
    const authority = options.central === undefined ? undefined : centralAuthority(options.central);
    await authority?.register([appId]);
    const auth = await AuthService.create(
      db,
      outbox,
      resolveAuthOptions(appDir, {
        print: writer,
        appUrl: listener.url,
        ...(authority === undefined
          ? {}
          : {
              isReviewer: (accountId: string) => authority.isPlatformAdministrator(accountId),
              // The app's sign-in owner (the developer's account) and the organisation's facts.
              agentAuthority: {
                mayEdit: async (accountId: string) =>
                  (await auth.isOwner(accountId)) || authority.mayEdit(appId, accountId),
                owns: async (accountId: string) =>
                  (await auth.isOwner(accountId)) ||
                  (await authority.facts(appId)).ownerAccountId === accountId,
              },
            }),
        ...options.auth,
        appId,
      }),
      options.central ?? db,
    );
    const authenticate = options.authenticate ?? auth.authenticate;
    forgetOwner = () => auth.forgetOwner();
    // Agent-created accounts with this app as the project (spec 5.2).
    const onboarding = new Onboarding({
      auth,
      accounts: options.central ?? db,
      outbox,
      clock: options.auth?.clock ?? systemClock,
      print: writer,
      handOver: async (request) => {
        await authority?.setOwner(appId, request.accountId);
        await auth.grantAccess(request.email);
      },
    });
    teardown.add(deletions.start());
    const tokens = new InvocationTokens();
    const searches = options.searches ?? [];
    const invoker = new FunctionInvoker({
      tokens,
      brokerUrl: `http://127.0.0.1:${listener.port}`,
      sdkVersion: options.sdkVersion,
      environment: options.environment ?? 'development',
      redactor,
      declared: {
        ...(options.declared ?? emptyDeclarations),
        ...(searches.length > 0 ? { searches: sdkSearchDeclarations(searches) } : {}),
      },
    });
    const functions = new FunctionDeployments({
      appDir,
      stateDir,
      sdk,
      brokerPort: listener.port,
      allowNet: options.allowNet,
      idleStopMs: options.functionIdleMs,
      invoker,
      print: writer,
      redactor,
    });
    teardown.add(() => functions.close());
    // Spec 3.3: while the owner is paused for verification, Functions, cron and inbound mail stop.
    const paused = () => auth.appPaused();
    const inboundMail = new InboundMail({
      db,
      files,
      invoker,
      addresses: new InboundAddresses(
        devMailDomain(appDir),
        (options.declared ?? emptyDeclarations).emailAliases,
      ),
      functionName: options.inboundFunction,
      paused,
    });
    const reportError = (error: unknown) => writer(`broker jobs error: ${stackOf(error)}`);
    const jobs = await startBrokerJobs(
      db,
      files,
      invoker,
      { paused, scope: { ...localScope, appId }, ...options.jobs },
      reportError,
    );
    teardown.add(() => jobs.stop());
    // Search objects (expression indexes, vector columns) are created now; a declaration that
    // does not fit the database yet is reported and prepared again on its first call.
    const search = searches.length > 0 ? new SearchService(db, searches) : undefined;
    await prepareSearches(search, writer);
    const push = await PushService.create(db, {
      stateDir,
      brokerUrl: `http://127.0.0.1:${listener.port}`,
    });
    const app = createBrokerApp({
      appId,
      ai,
      jobs: jobs.service,
      push,
      ...(search ? { search } : {}),
      data,
      files,
      secrets,
      outbox,
      inbound: inboundMail,
      logs,
      tokens,
      invoker,
      authenticate,
      auth: { service: auth, admission: options.authenticate === undefined },
      deletions,
      onboarding,
      ...(authority === undefined
        ? {}
        : {
            authority: {
              appId,
              authority,
              members: new Memberships(options.central!),
              apps: () => {
                const peers = options.auth?.peers?.() ?? [];
                return peers.length > 0 ? peers : [{ appId, url: listener.url }];
              },
            },
          }),
      ...(options.integrations ? { integrations: options.integrations } : {}),
      ...(options.integrationEmit ? { integrationEmit: options.integrationEmit } : {}),
      reportError: (error, requestId) => writer(`broker error ${requestId}: ${stackOf(error)}`),
    });
    options.mount?.(app, { invoker, authenticate });
    return {
      appId,
      app,
      server: listener.serve(app),
      db,
      central: options.central ?? db,
      data,
      files,
      logs,
      outbox,
      inboundMail,
      push,
      invoker,
      search,
      jobs,
      auth,
      deletions,
      ai,
      migrations: opened.migrations,
      dbMilliseconds: opened.milliseconds,
      functions,
      addFunction: (fn) => functions.add(fn),
      removeFunction: (name) => functions.remove(name),
      close: () => teardown.close(),
    };
  });
}

/**
 * Prepares every declared search (after a start, or after migrations ran again with
 * {@link SearchService.invalidate} first) and prints a warning for each that does not fit.
 */
export async function prepareSearches(
  search: SearchService | undefined,
  print: LogWriter,
): Promise<void> {
  for (const { name, problem } of (await search?.prepare()) ?? []) {
    if (problem) print(`WARN  search ${name}: ${problem}`);
  }
}

const stackOf = printableError;
