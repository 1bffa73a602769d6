import { PlatformError } from '@platform/errors';
import type { Database } from '../db/database.ts';
import type { FileGrant } from '../functions/invocation-tokens.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { systemCaller } from '../kernel/caller.ts';
import { addSeconds } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import { Completions } from './completions.ts';
import { claimJobs, failJob, type Lease, recoverExpiredLeases, renewLease } from './job-claims.ts';
import { classifyFailure } from './job-policy.ts';
import type { JobRow } from './job-rows.ts';
import type { JobService } from './job-service.ts';
import { sweepTerminal } from './job-store.ts';

/** One finished attempt, as {@link JobWorkerOptions.onAttempt} reports it. */
export interface AttemptReport {
  readonly id: string;
  readonly kind: 'job' | 'cron';
  readonly queue: string;
  readonly attempt: number;
  /** `performance.timeOrigin + performance.now()` right after the claim committed. */
  readonly startedAt: number;
  /** The same clock right before the outcome was written. */
  readonly endedAt: number;
  readonly outcome: 'succeeded' | 'retry_wait' | 'dead_lettered' | 'lost';
  readonly errorCode?: string | undefined;
}

/** How a worker runs. */
export interface JobWorkerOptions {
  readonly jobs: JobService;
  /** Runs the consumer Functions (the broker's invoker; tests pass a fake). */
  readonly invoker: Pick<FunctionInvoker, 'get' | 'call'>;
  /** Lease of a running attempt; renewed every third of it. @default 30 */
  readonly leaseSeconds?: number;
  /** How often to look for due work without being woken. @default 500 */
  readonly pollMs?: number;
  /** Attempts this process runs at once, over all queues. @default 32 */
  readonly maxInFlight?: number;
  /** How often expired leases are recovered. @default 2000 */
  readonly recoverEveryMs?: number;
  /** How often terminal rows past retention are deleted. @default 3600000 */
  readonly sweepEveryMs?: number;
  /** How long `stop()` waits for running attempts. @default 10000 */
  readonly stopGraceMs?: number;
  /** Called after every attempt (tests record in-flight intervals with it). */
  readonly onAttempt?: (report: AttemptReport) => void;
  /** Unexpected failures of the loop itself (database gone, ...). */
  readonly onError?: (error: unknown) => void;
  /**
   * True while the app is paused for verification (spec 3.3): nothing is claimed, so no attempt
   * is consumed and due jobs wait until it resumes. @default never paused
   */
  readonly paused?: () => Promise<boolean> | boolean;
}

const preciseNow = (): number => performance.timeOrigin + performance.now();

/**
 * Runs due jobs and cron runs of the declared queues and schedules by invoking their consumer
 * Functions (resolved from the active declaration at dispatch) as the system, with
 * `job: { id, queue, attempt }` for queue consumers. Each attempt holds a lease it renews; an
 * attempt whose lease is lost is aborted and its outcome discarded. Any number of workers (in
 * any number of brokers on one database) may run: claims never overlap and per-queue
 * concurrency holds across all of them.
 *
 * @example
 * ```ts
 * const worker = new JobWorker({ jobs, invoker });
 * worker.start();
 * // ...
 * await worker.stop();
 * ```
 */
export class JobWorker {
  /** This worker's lease owner id. */
  readonly id = newId('jobWorker');
  readonly #o: Required<Omit<JobWorkerOptions, 'onAttempt' | 'onError' | 'paused'>> &
    Pick<JobWorkerOptions, 'onAttempt' | 'onError' | 'paused'>;
  readonly #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #again = false;
  #stopped = true;
  #lastRecover = 0;
  #lastSweep = 0;
  #unsubscribe: (() => void) | undefined;
  /**
   * Claims, outcomes, lease renewals and recoveries go ahead of other statements waiting for
   * PGlite's one session: a finished attempt's slot is what the queue's due jobs wait for, and
   * its outcome and the next claim would otherwise wait behind every enqueue. (While a claim
   * was a transaction of four statements, claiming ahead halved the throughput, a claim for
   * nearly every job; as one held session of two it keeps the throughput and starts jobs about
   * three times sooner under a burst of enqueues, measured in bench/jobs.)
   */
  readonly #db: Database;
  readonly #completions: Completions;

  constructor(options: JobWorkerOptions) {
    this.#o = {
      leaseSeconds: 30,
      pollMs: 500,
      maxInFlight: 32,
      recoverEveryMs: 2000,
      sweepEveryMs: 3_600_000,
      stopGraceMs: 10_000,
      ...options,
    };
    this.#db = options.jobs.db.ahead();
    this.#completions = new Completions(this.#db);
  }

  /** Attempts running in this process now. */
  get inFlight(): number {
    return this.#running.size;
  }

  /** Starts polling (and reacting to enqueues in this process). */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#unsubscribe = this.#o.jobs.onWork(() => this.wake());
    this.wake();
  }

  /** Looks for due work now. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    // A zero timeout is 1 ms in Node: the enqueues that arrive meanwhile are claimed together.
    // Waking with setImmediate instead measured half the throughput on PGlite (bench/jobs).
    this.#timer = setTimeout(() => void this.#tick(), 0);
  }

  /** Stops claiming and waits (up to `stopGraceMs`) for running attempts to finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    clearTimeout(this.#timer);
    const settled = Promise.allSettled([...this.#running]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((r) => (timer = setTimeout(r, this.#o.stopGraceMs)))]);
    clearTimeout(timer);
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    this.#ticking = true;
    this.#again = false;
    try {
      await this.#housekeeping();
      await this.#claimAll();
    } catch (error) {
      if (!this.#stopped) this.#o.onError?.(error);
    } finally {
      this.#ticking = false;
      if (!this.#stopped) {
        this.#timer = setTimeout(() => void this.#tick(), this.#again ? 0 : this.#o.pollMs);
      }
    }
  }

  async #housekeeping(): Promise<void> {
    const { jobs } = this.#o;
    const wall = Date.now();
    if (wall - this.#lastRecover >= this.#o.recoverEveryMs) {
      this.#lastRecover = wall;
      await recoverExpiredLeases(this.#db, jobs.clock.now());
    }
    if (wall - this.#lastSweep >= this.#o.sweepEveryMs) {
      this.#lastSweep = wall;
      await sweepTerminal(jobs.db, jobs.clock.now());
    }
  }

  async #claimAll(): Promise<void> {
    const { jobs, invoker } = this.#o;
    // A paused app runs no Functions: its jobs stay due, attempts untouched (spec 3.1, 3.3).
    if (await this.#o.paused?.()) return;
    const targets = [
      ...jobs.queues.map((q) => ({ kind: 'job' as const, queue: q.name, fn: q.function })),
      ...jobs.cron.map((c) => ({ kind: 'cron' as const, queue: c.name, fn: c.function })),
    ];
    for (const target of targets) {
      const free = this.#o.maxInFlight - this.#running.size;
      if (free <= 0 || this.#stopped) return;
      // Until its Function is loaded a queue's jobs wait instead of burning attempts.
      if (!invoker.get(target.fn)) continue;
      const rows = await claimJobs(this.#db, jobs.scope, target, {
        max: free,
        owner: this.id,
        leaseSeconds: this.#o.leaseSeconds,
        now: jobs.clock.now(),
      });
      for (const row of rows) this.#track(this.#attempt(row, target.fn));
    }
  }

  #track(run: Promise<void>): void {
    this.#running.add(run);
    void run.finally(() => {
      this.#running.delete(run);
      this.wake();
    });
  }

  async #attempt(row: JobRow, fn: string): Promise<void> {
    const { jobs, invoker } = this.#o;
    const startedAt = preciseNow();
    const lease: Lease = { owner: this.id, attempt: row.attempt };
    const requestId = newId('request');
    const controller = new AbortController();
    let lost = false;
    const renew = setInterval(
      () => {
        const until = addSeconds(jobs.clock.now(), this.#o.leaseSeconds);
        renewLease(this.#db, row.id, lease, until).then(
          (held) => {
            if (!held) {
              lost = true;
              controller.abort();
            }
          },
          () => undefined,
        );
      },
      (this.#o.leaseSeconds * 1000) / 3,
    );
    const fileGrant: FileGrant | undefined =
      row.file_grants && row.grant_expires_at !== null
        ? {
            files: row.file_grants,
            expiresAt: new Date(row.grant_expires_at),
            ...(row.grant_user_id ? { grantedBy: row.grant_user_id } : {}),
          }
        : undefined;
    let failure: unknown;
    let ok = false;
    try {
      const response = await invoker.call(fn, {
        requestId,
        input: row.payload,
        caller: systemCaller(),
        origin: 'platform',
        via: row.kind === 'job' ? 'job' : 'cron',
        job: row.kind === 'job' ? { id: row.id, queue: row.queue, attempt: row.attempt } : null,
        ...(row.kind === 'job' ? { timeoutMs: row.timeout_seconds * 1000 } : {}),
        signal: controller.signal,
        ...(fileGrant ? { fileGrant } : {}),
      });
      await response.arrayBuffer();
      ok = true;
    } catch (error) {
      failure = error;
    } finally {
      clearInterval(renew);
    }
    const endedAt = preciseNow();
    const report = (outcome: AttemptReport['outcome'], errorCode?: string) =>
      this.#o.onAttempt?.({
        id: row.id,
        kind: row.kind,
        queue: row.queue,
        attempt: row.attempt,
        startedAt,
        endedAt,
        outcome,
        errorCode,
      });
    try {
      if (lost) return report('lost');
      const now = jobs.clock.now();
      if (ok) {
        report((await this.#completions.record(row.id, lease, now)) ? 'succeeded' : 'lost');
        return;
      }
      const verdict = classifyFailure(
        isAbort(failure)
          ? new PlatformError({ code: 'JOB_ATTEMPT_LOST', message: 'The attempt was aborted.' })
          : failure,
      );
      const state = await failJob(
        this.#db,
        row,
        lease,
        { ...verdict, queueActive: jobs.isActive(row.kind, row.queue) },
        now,
      );
      report(state ?? 'lost', verdict.error.code);
    } catch (error) {
      // The database went away (shutdown): the lease expires and another worker recovers the row.
      if (!this.#stopped) this.#o.onError?.(error);
    }
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof PlatformError && error.code === 'ABORTED';
}
