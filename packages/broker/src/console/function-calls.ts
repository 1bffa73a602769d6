import type { FinishedCall } from '../functions/invoker.ts';

/** How many finished calls the console keeps (the newest; older ones drop off). */
export const KEPT_CALLS = 2000;

/** The last hour's calls as the Overview charts them. */
export interface CallsOverview {
  /** Calls that began in each of the last 60 minutes, oldest first. */
  readonly perMinute: readonly number[];
  /** Failed calls in each of those minutes. */
  readonly failedPerMinute: readonly number[];
  readonly total: number;
  readonly failed: number;
  /** Latency percentiles of the hour's calls in milliseconds; `null` without calls. */
  readonly p50: number | null;
  readonly p99: number | null;
}

/** The `q` quantile (0..1) of sorted `values`, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? null;
}

/**
 * The recent calls of the app's Functions, kept in memory for the console (at most
 * {@link KEPT_CALLS}): name, origin, time, duration and outcome, never input or output. Fed by
 * `FunctionInvoker.onCall`; a broker restart starts empty.
 */
export class FunctionCalls {
  readonly #calls: FinishedCall[] = [];

  /** Keeps one finished call. */
  add(call: FinishedCall): void {
    this.#calls.push(call);
    if (this.#calls.length > KEPT_CALLS) this.#calls.shift();
  }

  /** The newest `limit` calls of Function `name`, newest first. */
  recent(name: string, limit: number): FinishedCall[] {
    const out: FinishedCall[] = [];
    for (let i = this.#calls.length - 1; i >= 0 && out.length < limit; i--) {
      const call = this.#calls[i] as FinishedCall;
      if (call.name === name) out.push(call);
    }
    return out;
  }

  /** The request id's call, if one is kept: the Function a request called. */
  byRequest(requestId: string): FinishedCall | undefined {
    for (let i = this.#calls.length - 1; i >= 0; i--) {
      const call = this.#calls[i] as FinishedCall;
      if (call.requestId === requestId) return call;
    }
    return undefined;
  }

  /** The calls that began in the hour before `now`, by minute. */
  overview(now: number): CallsOverview {
    const perMinute = new Array<number>(60).fill(0);
    const failedPerMinute = new Array<number>(60).fill(0);
    const durations: number[] = [];
    let failed = 0;
    for (const call of this.#calls) {
      const ago = Math.floor((now - Date.parse(call.at)) / 60_000);
      if (ago < 0 || ago >= 60) continue;
      const slot = 59 - ago;
      perMinute[slot] = (perMinute[slot] ?? 0) + 1;
      if (!call.ok) {
        failed++;
        failedPerMinute[slot] = (failedPerMinute[slot] ?? 0) + 1;
      }
      durations.push(call.durationMs);
    }
    durations.sort((a, b) => a - b);
    return {
      perMinute,
      failedPerMinute,
      total: durations.length,
      failed,
      p50: quantile(durations, 0.5),
      p99: quantile(durations, 0.99),
    };
  }
}
