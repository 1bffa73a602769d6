import { type JsonValue, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { IntegrationContract } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { CronTimes } from '../kernel/cron-times.ts';
import { whileRenewing } from '../kernel/lease-renewal.ts';
import { isGone, type ProcessMark, thisProcess } from '../kernel/process-mark.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import type { Connections } from './connections.ts';
import type { OAuthTokens } from './oauth-tokens.ts';
import type { ProviderApp } from './provider-app.ts';

/** One sync run that finished. */
export interface SyncRun {
  readonly integration: string;
  readonly connectionId: string;
  /** The occurrence of the schedule it ran for (ISO 8601). */
  readonly scheduledAt: string;
  /** `ok`, or the error code it failed with. */
  readonly result: string;
  readonly durationMs: number;
}

// A run holds its connection this long, the hold renewed every third of it while the run goes
// on (up to the Function's 15-minute limit): a broker that dies mid-run, on any machine, lets
// another take the connection over a minute later.
const SYNC_LEASE_MS = 60_000;

/** The holder of a running sync, as its row records it. */
interface SyncHolder extends ProcessMark {
  /** The occurrence it runs (ISO 8601): run again when the holder turns out gone. */
  readonly scheduledAt: string;
}

interface HeldRow {
  id: string;
  sync_lease_holder: SyncHolder;
}

interface DueRow {
  id: string;
  last_sync_at: Date | string | null;
  /** The run that held it, when its hold ran out without the run finishing. */
  sync_lease_holder: SyncHolder | null;
}

/**
 * Runs each provider's `sync.function` on `sync.schedule` in `sync.timezone` (spec 2.9, 8;
 * docs/integrations.md) for every active connection bound into at least one app: input `{}`,
 * `ctx.integration.trigger` `sync`, the connection's credentials and current OAuth access token,
 * up to the 15-minute Function timeout. Fire times follow the cron rules (`CronTimes`: a
 * local time DST skips runs after the gap, a repeated one runs once). A connection's progress
 * and its running sync are held on its row, so brokers sharing one PostgreSQL run each
 * occurrence once and never two syncs of one connection at a time; occurrences missed while
 * a sync ran or the broker was down coalesce into one run. A newly bound connection starts from
 * now. A sync that throws 401 makes the connection `Reconnect required` (spec 3.2).
 */
export class IntegrationSync {
  readonly #db: Database;
  readonly #connections: Connections;
  readonly #tokens: OAuthTokens;
  readonly #apps: () => readonly ProviderApp[];
  readonly #print: LogWriter;
  readonly #clock: Clock;
  readonly #times = new Map<string, CronTimes>();
  readonly #running = new Set<Promise<SyncRun>>();
  // The connections this process syncs now: the row's lease is the guard across processes, this
  // one holds in this process whatever the clock does.
  readonly #active = new Set<string>();
  readonly #listeners = new Set<(run: SyncRun) => void>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<unknown> = Promise.resolve();

  constructor(options: {
    central: Database;
    connections: Connections;
    tokens: OAuthTokens;
    apps: () => readonly ProviderApp[];
    print: LogWriter;
    clock?: Clock | undefined;
  }) {
    this.#db = options.central;
    this.#connections = options.connections;
    this.#tokens = options.tokens;
    this.#apps = options.apps;
    this.#print = options.print;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Checks the schedules every `tickMs` until {@link IntegrationSync.stop}, first taking over
   * the syncs of dead holders ({@link IntegrationSync.takeOverDeadLeases}).
   */
  start(tickMs = 1000): void {
    if (this.#timer) return;
    let first = true;
    const loop = () => {
      const recovered = first ? this.takeOverDeadLeases() : Promise.resolve([]);
      first = false;
      this.#ticking = recovered
        .then(() => this.tick())
        .catch((error: unknown) =>
          this.#print(
            `integration sync: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      void this.#ticking.finally(() => {
        if (this.#timer) this.#timer = setTimeout(loop, tickMs);
      });
    };
    this.#timer = setTimeout(loop, 0);
  }

  /** Stops checking and waits for the syncs that are running. */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
    await Promise.allSettled([...this.#running]);
  }

  /** Calls `listener` with every sync run this broker finishes; answers its removal. */
  onRun(listener: (run: SyncRun) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts the syncs that are due now (without waiting for them); answers the connections it
   * started them for.
   */
  async tick(): Promise<string[]> {
    const started: string[] = [];
    const now = this.#clock.now();
    for (const provider of this.#apps()) {
      const contract = provider.manifest.provides?.integration;
      // A paused provider runs no Function; its progress stays, so the resume runs the latest
      // missed occurrence, as cron does.
      if (!contract?.sync || (await provider.paused())) continue;
      const times = this.#timesOf(contract.sync.schedule, contract.sync.timezone);
      const { rows } = await this.#db.query<DueRow>(
        `SELECT c.id, c.last_sync_at,
                CASE WHEN c.sync_lease_until <= $3 THEN c.sync_lease_holder END AS sync_lease_holder
           FROM platform.connections c
          WHERE c.integration = $1 AND c.provider_app_id = $2 AND c.condition = 'active'
            AND EXISTS (SELECT 1 FROM platform.bindings b
                         WHERE b.connection_id = c.id AND b.revoked_at IS NULL)`,
        [contract.name, provider.appId, now],
      );
      for (const row of rows) {
        if (row.last_sync_at === null) {
          // Newly bound (or first seen): the schedule starts from now.
          await this.#db.query(
            `UPDATE platform.connections SET last_sync_at = $2
              WHERE id = $1 AND last_sync_at IS NULL`,
            [row.id, now],
          );
          continue;
        }
        const since = new Date(row.last_sync_at);
        // A run whose hold ran out unfinished (its broker died): its occurrence is due again.
        const from = row.sync_lease_holder
          ? new Date(new Date(row.sync_lease_holder.scheduledAt).getTime() - 1)
          : since;
        const due = times.between(from, now).at(-1);
        if (due === undefined || this.#active.has(row.id)) continue;
        const holder = await this.#lease(row.id, since, now, due);
        if (!holder) continue;
        started.push(row.id);
        this.#active.add(row.id);
        const run = this.#run(provider, contract, row.id, due, holder);
        this.#running.add(run);
        void run.finally(() => this.#running.delete(run));
      }
    }
    return started;
  }

  /**
   * Ends the leases of syncs whose holder is gone (a broker on this machine that was killed, even
   * by SIGKILL, or that ran before the machine last booted), so that their connections do not
   * wait out the lease: each interrupted occurrence is due again at the next tick.
   * A holder on another machine sharing the PostgreSQL is never judged from here: its lease
   * runs out. Answers the connections taken over.
   */
  async takeOverDeadLeases(): Promise<string[]> {
    const { rows } = await this.#db.query<HeldRow>(
      `SELECT id, sync_lease_holder FROM platform.connections
        WHERE sync_lease_holder IS NOT NULL AND sync_lease_until > $1`,
      [this.#clock.now()],
    );
    const taken: string[] = [];
    for (const row of rows) {
      const holder = row.sync_lease_holder;
      if (!isGone(holder)) continue;
      // Just before the interrupted occurrence, so that it is due again; only if the row still
      // names that holder (another starter may have taken it over first).
      const before = new Date(new Date(holder.scheduledAt).getTime() - 1);
      const { rowCount } = await this.#db.query(
        `UPDATE platform.connections
            SET sync_lease_until = NULL, sync_lease_holder = NULL, last_sync_at = $3
          WHERE id = $1 AND sync_lease_holder = $2::jsonb`,
        [row.id, JSON.stringify(holder), before],
      );
      if (rowCount === 0) continue;
      taken.push(row.id);
      this.#print(
        `integration sync: took over the sync of ${row.id} from process ${holder.pid}, which is gone; it runs again`,
      );
    }
    return taken;
  }

  // Takes the connection's next sync for this process: only when no sync of it runs and no
  // other process took the same occurrence (its progress is still `since`). The row names this
  // process as the holder, so that a broker starting after it dies can take the lease over.
  // Answers the holder, or `undefined` when the sync is not this process's to run.
  async #lease(id: string, since: Date, now: Date, due: Date): Promise<SyncHolder | undefined> {
    const holder: SyncHolder = { ...thisProcess(), scheduledAt: due.toISOString() };
    const { rowCount } = await this.#db.query(
      `UPDATE platform.connections
          SET sync_lease_until = $4, last_sync_at = $3, sync_lease_holder = $5::jsonb
        WHERE id = $1 AND last_sync_at = $2
          AND (sync_lease_until IS NULL OR sync_lease_until <= $3)`,
      [id, since, now, new Date(now.getTime() + SYNC_LEASE_MS), JSON.stringify(holder)],
    );
    return rowCount > 0 ? holder : undefined;
  }

  async #run(
    provider: ProviderApp,
    contract: IntegrationContract,
    connectionId: string,
    scheduledAt: Date,
    holder: SyncHolder,
  ): Promise<SyncRun> {
    const started = performance.now();
    const held = JSON.stringify(holder);
    const renew = () =>
      this.#db.query(
        `UPDATE platform.connections SET sync_lease_until = $3
          WHERE id = $1 AND sync_lease_holder = $2::jsonb`,
        [connectionId, held, new Date(this.#clock.now().getTime() + SYNC_LEASE_MS)],
      );
    let result: string;
    try {
      result = await whileRenewing(SYNC_LEASE_MS, renew, () =>
        this.#invoke(provider, contract, connectionId, scheduledAt),
      );
    } finally {
      // Only its own hold: after a stall past it, the connection may be another run's now.
      await this.#db.query(
        `UPDATE platform.connections SET sync_lease_until = NULL, sync_lease_holder = NULL
          WHERE id = $1 AND sync_lease_holder = $2::jsonb`,
        [connectionId, held],
      );
      this.#active.delete(connectionId);
    }
    const run: SyncRun = {
      integration: contract.name,
      connectionId,
      scheduledAt: scheduledAt.toISOString(),
      result,
      durationMs: Math.round(performance.now() - started),
    };
    this.#print(
      `integration ${contract.name}: sync of ${connectionId} ${result === 'ok' ? 'ok' : `failed (${result})`} in ${run.durationMs} ms`,
    );
    for (const listener of this.#listeners) listener(run);
    return run;
  }

  // Calls the provider's sync Function for the connection; answers `ok` or the failure's code.
  async #invoke(
    provider: ProviderApp,
    contract: IntegrationContract,
    connectionId: string,
    scheduledAt: Date,
  ): Promise<string> {
    const requestId = `sync_${connectionId}_${scheduledAt.getTime()}`;
    try {
      const credentials = await this.#tokens.credentials(
        connectionId,
        contract,
        provider,
        requestId,
      );
      await provider.invoke((contract.sync as NonNullable<typeof contract.sync>).function, {
        requestId,
        input: {} as JsonValue,
        connectionId,
        trigger: 'sync',
        credentials,
        timeoutMs: limits.integration.syncTimeoutSeconds * 1000,
      });
      return 'ok';
    } catch (error) {
      const known = error instanceof PlatformError ? error : undefined;
      if (known?.status === 401) await this.#connections.requireReconnect(connectionId);
      return known?.code ?? 'INTEGRATION_PROVIDER_FAILED';
    }
  }

  #timesOf(schedule: string, timezone: string | undefined): CronTimes {
    const key = `${schedule}\0${timezone ?? 'UTC'}`;
    let times = this.#times.get(key);
    if (!times) {
      times = new CronTimes(schedule, timezone ?? 'UTC');
      this.#times.set(key, times);
    }
    return times;
  }
}
