// Readiness of a `platform serve` node, answered from background probes. A readyz that queried
// the central store through the requests' pool waited behind them: a node that was only busy
// looked down, and under one overload every node looked down at once (docs/scaling.md). The
// probes use connections of their own and readyz reads their last results, so it answers at
// once; a result too old counts as not ready, so a store that stops answering still turns
// readyz to 503 within the bound.
import type { Client } from 'pg';

/** How often each dependency is probed. */
export const PROBE_INTERVAL_MS = 1_000;
/** How long one probe may take before it counts as failed. */
export const PROBE_TIMEOUT_MS = 2_000;
/**
 * How old the last successful probe may be for readyz to call the dependency ready: a probe that
 * hangs (a server that accepts nothing and refuses nothing) ages past it.
 */
export const PROBE_MAX_AGE_MS = 3_000;

/** One dependency readyz reports on. */
export interface ReadinessCheck {
  /** The reason readyz gives while the dependency is not ready (`central store unreachable`). */
  readonly reason: string;
  /** Resolves when the dependency answers; rejects (or hangs) when it does not. */
  readonly probe: () => Promise<unknown>;
  /** Releases what the probe holds (its own connection). */
  readonly close?: () => Promise<void> | void;
}

/** What a {@link ReadinessProbes} needs besides its checks. */
export interface ReadinessTiming {
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  readonly maxAgeMs?: number;
  /** Milliseconds of a monotonic clock. @default performance.now */
  readonly now?: () => number;
}

/**
 * Probes each dependency every {@link PROBE_INTERVAL_MS} in the background, one probe at a time
 * per dependency, and answers readiness from the last results without waiting on anything.
 *
 * @example
 * ```ts
 * const probes = new ReadinessProbes([postgresReadiness(url, 'central store unreachable')]);
 * await probes.start();
 * probes.notReady(); // undefined, or the first failing check's reason
 * ```
 */
export class ReadinessProbes {
  readonly #checks: readonly ReadinessCheck[];
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  /** When each check last succeeded, by index; absent before its first success. */
  readonly #lastOk = new Map<number, number>();
  /** Checks whose last probe failed. */
  readonly #failed = new Set<number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(checks: readonly ReadinessCheck[], timing: ReadinessTiming = {}) {
    this.#checks = checks;
    this.#intervalMs = timing.intervalMs ?? PROBE_INTERVAL_MS;
    this.#timeoutMs = timing.timeoutMs ?? PROBE_TIMEOUT_MS;
    this.#maxAgeMs = timing.maxAgeMs ?? PROBE_MAX_AGE_MS;
    this.#now = timing.now ?? (() => performance.now());
  }

  /** Runs the first round of probes (so readyz is truthful from the start), then keeps probing. */
  async start(): Promise<void> {
    await Promise.all(this.#checks.map((_, index) => this.#round(index)));
  }

  /** The first failing check's reason, or `undefined` when every last probe is fresh and good. */
  notReady(): string | undefined {
    const now = this.#now();
    for (const [index, check] of this.#checks.entries()) {
      const at = this.#lastOk.get(index);
      if (this.#failed.has(index) || at === undefined || now - at > this.#maxAgeMs) {
        return check.reason;
      }
    }
    return undefined;
  }

  /** Stops probing and closes the probes' connections. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all(this.#checks.map((check) => check.close?.()));
  }

  /** One probe of check `index`, then the next one an interval after it settles. */
  async #round(index: number): Promise<void> {
    if (this.#closed) return;
    const ok = await this.#answers(this.#checks[index] as ReadinessCheck);
    if (ok) {
      this.#lastOk.set(index, this.#now());
      this.#failed.delete(index);
    } else {
      this.#failed.add(index);
    }
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#round(index);
    }, this.#intervalMs);
    // A probe never keeps the process alive on its own.
    timer.unref();
    this.#timers.add(timer);
  }

  async #answers(check: ReadinessCheck): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#timeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([check.probe().then(() => true), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A check of a PostgreSQL database on one connection of its own, never one of a pool that
 * requests can exhaust: `SELECT 1`, connecting again after any failure (a restart ends the
 * connection; the next probe opens a new one).
 */
export function postgresReadiness(connectionString: string, reason: string): ReadinessCheck {
  let connected: Promise<Client> | undefined;
  const drop = (client: Promise<Client> | undefined) => {
    if (connected === client) connected = undefined;
    void client?.then((c) => c.end()).catch(() => undefined);
  };
  const connect = (): Promise<Client> => {
    const opening = (async () => {
      // Loaded like the pool's driver: only a service on PostgreSQL needs it.
      const { default: pg } = await import('pg');
      const client = new pg.Client({
        connectionString,
        connectionTimeoutMillis: PROBE_TIMEOUT_MS,
        query_timeout: PROBE_TIMEOUT_MS,
      });
      // A server that ends the idle connection must not end the process; the next probe
      // connects again.
      client.on('error', () => drop(opening));
      await client.connect();
      return client;
    })();
    opening.catch(() => drop(opening));
    return opening;
  };
  return {
    reason,
    probe: async () => {
      connected ??= connect();
      const current = connected;
      try {
        await (await current).query('SELECT 1');
      } catch (error) {
        drop(current);
        throw error;
      }
    },
    close: async () => {
      const current = connected;
      connected = undefined;
      await current?.then((c) => c.end()).catch(() => undefined);
    },
  };
}
