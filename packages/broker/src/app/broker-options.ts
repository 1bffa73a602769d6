import { resolve } from 'node:path';
import type { Declarations } from '@platform/schema/contract';
import type { SearchDeclaration } from '@platform/schema/manifest';
import type { Hono } from 'hono';
import type { AiOptions } from '../ai/ai-config.ts';
import type { AuthOptions } from '../auth/auth-options.ts';
import type { NewAppHost } from '../backups/new-app-host.ts';
import type { Database } from '../db/database.ts';
import type { FileStorageSettings } from '../files/files-feature.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { BrokerListener } from '../http/serve.ts';
import type { IntegrationsSettings } from '../integrations/integrations-feature.ts';
import type { BrokerJobsOptions } from '../jobs/start-jobs.ts';
import type { Authenticate } from '../kernel/caller.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import type { MailDelivery } from '../outbox/mail-delivery.ts';
import { loadAppId } from '../project/app-id.ts';
import type { RealtimeSettings } from '../realtime/realtime-hub.ts';
import type { SecretSource } from '../secrets/secret-store.ts';

/** How to start a broker for one app. */
export interface BrokerOptions {
  /** The app folder (holds `migrations/`, `functions/`, and the broker's `.platform/`). */
  readonly appDir: string;
  /**
   * The broker's own state (secrets, Web Push keys, the Functions' Deno cache), made with mode
   * 700 if missing: `platform serve` keeps one per app, so every revision of the app has the same.
   * @default `<appDir>/.platform`
   */
  readonly stateDir?: string;
  /**
   * Makes and serves the new app a backup is restored into beside this one (`platform backups
   * restore <id> --to <app>`, docs/backups.md). @default none: such a restore answers
   * `FEATURE_NOT_AVAILABLE`
   */
  readonly newApps?: NewAppHost | undefined;
  /**
   * Where `ctx.secrets` reads values: `platform serve` gives each deployed app its secrets in the
   * central store, so every node reads the same.
   * @default the file `<stateDir>/secrets.json`, followed as it changes
   */
  readonly secrets?: SecretSource;
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
   * Push services that browsers' subscriptions may name besides the broker's own local one:
   * host names (`https:` on it and its subdomains) or exact origins (docs/notifications.md).
   * @default `PLATFORM_PUSH_SERVICE_HOSTS` of the environment (comma-separated), else none
   */
  readonly pushServiceHosts?: readonly string[] | undefined;
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
   * Where a line for each thing the app did goes (a job or cron attempt run, an email sent or
   * received): `platform dev`'s terminal. @default nowhere
   */
  readonly activityWriter?: LogWriter;
  /**
   * Replaces the identity of browser and app-token requests (tests: a header identity). It also
   * turns off the private-app admission and the end of a job's delegated file grant when its
   * enqueuing user loses access, which only know sign-in's own identities.
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
  /**
   * Where the bytes of the app's files live: a folder, or S3-compatible object storage (each
   * app under `<prefix><app id>/` of the bucket; docs/production.md, "File storage").
   * @default the folder `.platform/files` of the app
   */
  readonly fileStorage?: FileStorageSettings | undefined;
  /** `data.search` declarations of platform.yaml (docs/search.md). */
  readonly searches?: readonly SearchDeclaration[];
  /** `realtime` of platform.yaml: channel rules and streamed tables (docs/realtime.md). */
  readonly realtime?: RealtimeSettings | undefined;
  /** Queues, cron schedules and worker settings (docs/jobs.md). */
  readonly jobs?: BrokerJobsOptions;
  /** The AI provider and its models (docs/ai.md). @default the offline, deterministic AI */
  readonly ai?: AiOptions;
  /**
   * What becomes of the email the app and its sign-in send (`platform serve`: SMTP, or none).
   * @default captured in the outbox and never sent (development email)
   */
  readonly mail?: MailDelivery | undefined;
  /**
   * `email.inbound.function` of platform.yaml: the system Function that receives mail sent to
   * the app's addresses (the `emailAliases` of `declared` at `<app folder>.localhost`,
   * docs/email.md). @default none: the app takes no mail
   */
  readonly inboundFunction?: string | undefined;
  /**
   * `ctx.integrations` and `ctx.integration.emit` of the app's Functions: the organisation's
   * integrations, or calls given directly (docs/integrations.md).
   * @default none: the call routes answer FEATURE_NOT_AVAILABLE
   */
  readonly integrations?: IntegrationsSettings;
}

const emptyDeclarations: Declarations = { secrets: [], searches: {}, emailAliases: [] };

/** {@link BrokerOptions} with every default applied once. */
export interface ResolvedBrokerOptions
  extends Omit<
    BrokerOptions,
    'appId' | 'logWriter' | 'declared' | 'searches' | 'environment' | 'pushServiceHosts'
  > {
  readonly appId: string;
  readonly logWriter: LogWriter;
  readonly declared: Declarations;
  readonly searches: readonly SearchDeclaration[];
  readonly environment: 'development' | 'production';
  readonly pushServiceHosts: readonly string[];
  /** Sign-in's clock, which deletions and onboarding also keep. */
  readonly clock: Clock;
  /** The organisation's other apps and this one, for sign-in across them. */
  readonly peerAppIds: () => readonly string[];
}

/**
 * Applies the defaults of {@link BrokerOptions}: the app folder made absolute, the app id (from
 * the options, sign-in's options, else `.platform/app.json`), the printer, the declarations.
 */
export async function resolveBrokerOptions(options: BrokerOptions): Promise<ResolvedBrokerOptions> {
  const appDir = resolve(options.appDir);
  return {
    ...options,
    appDir,
    appId: options.appId ?? options.auth?.appId ?? (await loadAppId(appDir)),
    logWriter: options.logWriter ?? ((line: string) => console.log(line)),
    declared: options.declared ?? emptyDeclarations,
    searches: options.searches ?? [],
    environment: options.environment ?? 'development',
    pushServiceHosts: options.pushServiceHosts ?? pushServiceHostsFromEnvironment(),
    clock: options.auth?.clock ?? systemClock,
    peerAppIds: () => (options.auth?.peers?.() ?? []).map((peer) => peer.appId),
  };
}

// `PLATFORM_PUSH_SERVICE_HOSTS=fcm.googleapis.com,updates.push.services.mozilla.com platform dev`
function pushServiceHostsFromEnvironment(): string[] {
  return (process.env.PLATFORM_PUSH_SERVICE_HOSTS ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
}
