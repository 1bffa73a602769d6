import { randomUUID } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { CronDeclaration } from '@platform/schema/manifest';
import type { Transaction } from '../../db/database.ts';
import { addSeconds, type Clock } from '../../kernel/clock.ts';
import { CronTimes } from '../../kernel/cron-times.ts';
import type { PinnedPolicy } from '../job-policy.ts';
import type { JobService } from '../job-service.ts';
import { insertJobIn, scopeParams, scopeSql } from '../job-store.ts';

/** The input a cron Function receives (spec 2.8). */
export interface CronEnvelope {
  readonly source: 'platform.cron';
  readonly name: string;
  /** The occurrence this run is for (ISO 8601, UTC); the trigger time for manual runs. */
  readonly scheduledAt: string;
  readonly [key: string]: unknown;
}

/** One run the scheduler created. */
export interface CronFire {
  readonly name: string;
  readonly scheduledAt: string;
  readonly runId: string;
}

/** A cron run is one invocation: no retries, one at a time per schedule, never dropped. */
export const cronRunPolicy: PinnedPolicy = {
  maxAttempts: 1,
  concurrency: 1,
  retryDelaySeconds: 1,
  retryBackoff: false,
  timeoutSeconds: limits.queues.timeoutSeconds.max,
};

interface StateRow {
  schedule: string;
  timezone: string;
  enabled: boolean;
  checked_until: Date | string;
}

/** How a scheduler runs. */
export interface CronSchedulerOptions {
  readonly jobs: JobService;
  /** @default the job service's clock */
  readonly clock?: Clock;
  /** How often `tick` runs after `start()`. @default 1000 */
  readonly tickMs?: number;
  readonly onError?: (error: unknown) => void;
  /**
   * True while the app is paused for verification (spec 3.3): ticks create no runs; after the
   * resume the latest missed occurrence fires, as after downtime. @default never paused
   */
  readonly paused?: () => Promise<boolean> | boolean;
}

/**
 * Turns the declared `cron[]` schedules into cron runs: rows of the job engine (kind `cron`)
 * whose input is the envelope `{ source: 'platform.cron', name, scheduledAt }`, run by the job
 * workers as the system. Each schedule's progress (`checked_until`) lives in the database, and a
 * tick handles it under a row lock, so several brokers create each run once. Rules (spec 8):
 * fire times of {@link CronTimes}; a schedule seen for the first time, re-enabled or changed
 * starts from now; a disabled schedule never runs; after downtime the missed occurrences
 * coalesce into one run for the latest occurrence within `limits.cron.recoveryWindowSeconds`;
 * runs wait for capacity (one at a time per schedule) but are never dropped.
 */
export class CronScheduler {
  readonly #jobs: JobService;
  readonly #clock: Clock;
  readonly #tickMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #paused: (() => Promise<boolean> | boolean) | undefined;
  readonly #times = new Map<string, CronTimes>();
  // What this process last read of each schedule's state, to skip ticks with nothing due.
  readonly #cache = new Map<string, StateRow & { checkedUntil: number }>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<unknown> = Promise.resolve();

  constructor(options: CronSchedulerOptions) {
    this.#jobs = options.jobs;
    this.#clock = options.clock ?? options.jobs.clock;
    this.#tickMs = options.tickMs ?? 1000;
    this.#onError = options.onError;
    this.#paused = options.paused;
  }

  /** Ticks every `tickMs` until `stop()`. */
  start(): void {
    if (this.#timer) return;
    const loop = () => {
      this.#ticking = this.tick().catch((error: unknown) => this.#onError?.(error));
      void this.#ticking.finally(() => {
        if (this.#timer) this.#timer = setTimeout(loop, this.#tickMs);
      });
    };
    this.#timer = setTimeout(loop, 0);
  }

  /** Stops ticking (a tick in progress finishes). */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
  }

  /** Handles every declared schedule once; returns the runs it created. */
  async tick(): Promise<CronFire[]> {
    const fired: CronFire[] = [];
    // Paused for verification (spec 3.3): no runs; `checked_until` stays, so the resume fires
    // the latest missed occurrence within the catch-up window.
    if (await this.#paused?.()) return fired;
    for (const declaration of this.#jobs.cron) {
      const fire = await this.#tickOne(declaration);
      if (fire) fired.push(fire);
    }
    if (fired.length > 0) this.#jobs.notify();
    return fired;
  }

  /** Runs a schedule now (`platform cron run <name>`), enabled or not, with `scheduledAt` now. */
  async trigger(name: string): Promise<CronFire> {
    const declaration = this.#jobs.cron.find((c) => c.name === name);
    if (!declaration) {
      throw new PlatformError({
        code: 'CRON_NOT_DECLARED',
        message: `No cron schedule named "${name}" is declared in platform.yaml.`,
        details: { name },
      });
    }
    const now = this.#clock.now();
    const fire = await this.#jobs.db.transaction((tx) =>
      this.#insertRun(tx, name, now, `manual:${randomUUID()}`),
    );
    this.#jobs.notify();
    return fire;
  }

  /** The next fire time of a declared schedule after `after` (`null` when disabled). */
  nextRun(declaration: CronDeclaration, after: Date = this.#clock.now()): Date | null {
    return declaration.enabled ? this.#timesOf(declaration).next(after) : null;
  }

  async #tickOne(c: CronDeclaration): Promise<CronFire | undefined> {
    const now = this.#clock.now();
    const cached = this.#cache.get(c.name);
    if (
      cached &&
      cached.schedule === c.schedule &&
      cached.timezone === c.timezone &&
      cached.enabled === c.enabled
    ) {
      if (!c.enabled || this.#due(c, cached.checkedUntil, now) === undefined) return undefined;
    }
    const { db, scope } = this.#jobs;
    return db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO platform.cron_state (app_id, environment, namespace, name, schedule, timezone, enabled, checked_until)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::timestamptz) ON CONFLICT DO NOTHING`,
        [...scopeParams(scope), c.name, c.schedule, c.timezone, c.enabled, now.toISOString()],
      );
      const { rows } = await tx.query<StateRow>(
        `SELECT schedule, timezone, enabled, checked_until FROM platform.cron_state WHERE ${scopeSql} AND name = $4 FOR UPDATE`,
        [...scopeParams(scope), c.name],
      );
      const state = rows[0] as StateRow;
      if (
        state.schedule !== c.schedule ||
        state.timezone !== c.timezone ||
        state.enabled !== c.enabled
      ) {
        // A changed or re-enabled schedule starts from now: nothing "missed" while it differed.
        await tx.query(
          `UPDATE platform.cron_state SET schedule = $5, timezone = $6, enabled = $7, checked_until = $8::timestamptz
            WHERE ${scopeSql} AND name = $4`,
          [...scopeParams(scope), c.name, c.schedule, c.timezone, c.enabled, now.toISOString()],
        );
        this.#remember(c, now.getTime());
        return undefined;
      }
      const checkedUntil = new Date(state.checked_until).getTime();
      const due = c.enabled ? this.#due(c, checkedUntil, now) : undefined;
      if (due === undefined) {
        this.#remember(c, checkedUntil);
        return undefined;
      }
      const fire = await this.#insertRun(tx, c.name, due, due.toISOString());
      await tx.query(
        `UPDATE platform.cron_state SET checked_until = $5::timestamptz, last_scheduled_at = $6::timestamptz, last_job_id = $7
          WHERE ${scopeSql} AND name = $4`,
        [...scopeParams(scope), c.name, now.toISOString(), due.toISOString(), fire.runId],
      );
      this.#remember(c, now.getTime());
      return fire;
    });
  }

  // The latest occurrence in (max(checkedUntil, now - 24 h), now], if any.
  #due(c: CronDeclaration, checkedUntil: number, now: Date): Date | undefined {
    const windowStart = Math.max(
      checkedUntil,
      addSeconds(now, -limits.cron.recoveryWindowSeconds).getTime(),
    );
    const times = this.#timesOf(c).between(new Date(windowStart), now);
    return times[times.length - 1];
  }

  async #insertRun(
    tx: Transaction,
    name: string,
    scheduledAt: Date,
    key: string,
  ): Promise<CronFire> {
    const payload: CronEnvelope = {
      source: 'platform.cron',
      name,
      scheduledAt: scheduledAt.toISOString(),
    };
    const { row } = await insertJobIn(
      tx,
      this.#jobs.scope,
      {
        kind: 'cron',
        queue: name,
        payload,
        idempotencyKey: key,
        delaySeconds: 0,
        policy: cronRunPolicy,
        files: null,
      },
      this.#clock.now(),
    );
    return { name, scheduledAt: payload.scheduledAt, runId: row.id };
  }

  #remember(c: CronDeclaration, checkedUntil: number): void {
    this.#cache.set(c.name, {
      schedule: c.schedule,
      timezone: c.timezone,
      enabled: c.enabled,
      checked_until: '',
      checkedUntil,
    });
  }

  #timesOf(c: CronDeclaration): CronTimes {
    const key = `${c.timezone} ${c.schedule}`;
    let times = this.#times.get(key);
    if (!times) {
      times = new CronTimes(c.schedule, c.timezone);
      this.#times.set(key, times);
    }
    return times;
  }
}
