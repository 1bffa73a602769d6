import type { Hono } from 'hono';
import type { Database, Queryable } from '../db/database.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { Authenticate } from '../kernel/caller.ts';
import type { Clock } from '../kernel/clock.ts';
import type { LogSink, LogWriter } from '../logs/log-sink.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';
import type { SecretSource } from '../secrets/secret-store.ts';

/** Closes one thing a feature opened; run in reverse order of opening when the broker stops. */
export type CloseStep = () => Promise<void> | void;

/**
 * What every feature of one app's broker shares, built by the composition root before the
 * first feature starts: the app's folder and databases, its address, the printer and log sink,
 * the secrets, the Function runner, and where to register what must be closed.
 */
export interface FeatureBase {
  /** The app folder (absolute). */
  readonly appDir: string;
  /** The app's `.platform` folder. */
  readonly stateDir: string;
  /** The app's id (docs/organisations.md). */
  readonly appId: string;
  /** The app's database. */
  readonly db: Database;
  /**
   * Where accounts, verifiers and links live: the organisation's central store, or {@link db}
   * for a broker running alone (then {@link organisation} is false).
   */
  readonly central: Database;
  /** Whether {@link central} is an organisation's central store apart from the app's database. */
  readonly organisation: boolean;
  /** `{app_url}`: the URL the broker answers on. */
  readonly url: string;
  /** The broker's port on 127.0.0.1 (Functions reach it there). */
  readonly port: number;
  readonly environment: 'development' | 'production';
  readonly clock: Clock;
  /** Where lines for the developer go. */
  readonly print: LogWriter;
  /** Where a line for each thing the app did goes (a job run, an email sent). */
  readonly activity: LogWriter;
  readonly logs: LogSink;
  readonly secrets: SecretSource;
  /** Values printed output hides from now on, like secrets (keys, endpoints). */
  redact(values: Iterable<string>): void;
  readonly invoker: FunctionInvoker;
  /** Registers how to close what a feature just opened. */
  onClose(step: CloseStep): void;
  /** Every feature's erasure, in registry order: what account deletion runs. */
  readonly erasures: readonly FeatureErasure[];
}

/** The account a deletion removes, as each feature's erasure sees it. */
export interface ErasedPerson {
  readonly accountId: string;
  /** The old address, normalised (lower case), while the deletion still needs it. */
  readonly email: string;
  /** When the deletion was asked for: rows to the address made later belong to a new account. */
  readonly requestedAt: Date;
}

/**
 * How a feature forgets people (spec 3.5). Account deletion calls each feature's hooks in
 * registry order, inside its own transactions; a feature that keeps rows naming a person must
 * erase them here (the deletion test scans every table for the old address).
 */
export interface FeatureErasure {
  /** The person's rows in the accounts' database (the central store, or the app's when alone). */
  readonly person?: (tx: Queryable, person: ErasedPerson) => Promise<void>;
  /**
   * Every row of the organisation in the accounts' database, when its only member deletes their
   * account. Accounts themselves stay (the person's goes last).
   */
  readonly organisation?: (tx: Queryable) => Promise<void>;
  /** The person's rows in the database of an app that stays (the organisation has others). */
  readonly appPerson?: (tx: Queryable, person: ErasedPerson) => Promise<void>;
  /**
   * Platform tables of the app's database that wiping the app keeps: the accounts side, which
   * {@link person} and {@link organisation} handle where it shares the app's database.
   */
  readonly keptByAppWipe?: readonly string[];
}

/** Where a feature's routes go relative to sign-in's admission check. */
export type MountStage =
  /** Before admission: answered outside sign-in (a push service checks its senders itself). */
  | 'edge'
  /** Admission itself and sign-in's own routes. */
  | 'admission'
  /** After admission, in registry order (the default). */
  | 'routes';

/**
 * A feature's routes by the stage they mount at ({@link MountStage}), each mounted on the
 * broker's app with the feature's service and needs.
 */
// Method signatures, so that the registry's list of any features takes each of them.
export interface FeatureMounts<Needs, Service> {
  edge?(app: Hono<BrokerEnv>, service: Service, needs: Needs, context: MountContext): void;
  admission?(app: Hono<BrokerEnv>, service: Service, needs: Needs, context: MountContext): void;
  routes?(app: Hono<BrokerEnv>, service: Service, needs: Needs, context: MountContext): void;
}

/** What a feature's routes are mounted with besides its own service and needs. */
export interface MountContext {
  /** The app's id, which the owner API's paths name. */
  readonly appId: string;
  /** Where accounts and the organisation's records live (see {@link FeatureBase.central}). */
  readonly central: Database;
  /** The identity of a browser or app-token request. */
  readonly authenticate: Authenticate;
  /** Whether sign-in's admission check runs (a test identity turns it off). */
  readonly admission: boolean;
}

/**
 * One feature of the broker: a folder that exports one of these, and one line in the registry
 * (`app/features.ts`) that lists it. The composition root starts the features in registry order;
 * each receives the shared {@link FeatureBase} and the services of the features it names in
 * `Needs` (which must come earlier in the registry: the typechecker checks it), and returns its
 * own service, which later features and the routes see under its {@link BrokerFeature.name}.
 *
 * @typeParam Name - the key its service is known by
 * @typeParam Needs - the services of earlier features it uses, by their names
 * @typeParam Service - what {@link BrokerFeature.start} builds
 *
 * @example
 * ```ts
 * export const outboxFeature: BrokerFeature<'outbox', object, Outbox> = {
 *   name: 'outbox',
 *   start: (base) => new Outbox(base.db),
 *   mount: { routes: (app, outbox) => mountOutboxRoutes(app, { outbox }) },
 * };
 * ```
 */
export interface BrokerFeature<Name extends string, Needs extends object, Service> {
  readonly name: Name;
  /**
   * Builds the service. Anything it opens that must be closed is registered with
   * {@link FeatureBase.onClose} right after it is opened.
   */
  start(base: FeatureBase, needs: Needs): Service | Promise<Service>;
  /** Mounts the feature's routes, at each stage it serves (see {@link MountStage}). */
  readonly mount?: FeatureMounts<Needs, Service>;
  /** How the feature forgets a deleted person (spec 3.5). */
  readonly erasure?: FeatureErasure;
  /** Its sections of the dashboard page, in page order among the features' (registry order). */
  readonly dashboard?: readonly DashboardSection[];
}

/** Any feature, whatever its name, needs and service: what the registry holds. */
// Needs is `never` so that a feature with any needs fits (it is only ever called with them).
export type AnyFeature = BrokerFeature<string, never, unknown>;
