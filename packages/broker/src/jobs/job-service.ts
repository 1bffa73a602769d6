import { PlatformError } from '@platform/errors';
import { jsonByteLength, limits } from '@platform/schema';
import type { CronDeclaration, QueueDeclaration } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import type { FileService } from '../files/file-service.ts';
import type { Caller } from '../kernel/caller.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { type JobListQuery, type JobPage, listJobs } from './job-history.ts';
import { type JobScope, policyOf } from './job-policy.ts';
import { type Job, type JobRow, jobColumns, toJob } from './job-rows.ts';
import { deadLetterInactive, findJob, insertJob, scopeParams, scopeSql } from './job-store.ts';

/** The body of a `jobsEnqueue` request, as the runtime contract parses it. */
export interface EnqueueRequest {
  readonly payload: Record<string, unknown>;
  readonly idempotencyKey: string;
  readonly delaySeconds?: number | undefined;
  readonly files?: { readonly read: readonly string[] } | undefined;
}

/** What the broker's platform.yaml declares for jobs and cron. */
export interface JobDeclarations {
  readonly queues: readonly QueueDeclaration[];
  readonly cron: readonly CronDeclaration[];
}

/** How to build a {@link JobService}. */
export interface JobServiceOptions {
  /** @default { appId: 'local', environment: 'development', namespace: 'default' } */
  readonly scope?: JobScope;
  /** @default the system clock */
  readonly clock?: Clock;
}

/** The scope of the local broker: one app, the development environment, one namespace. */
export const localScope: JobScope = {
  appId: 'local',
  environment: 'development',
  namespace: 'default',
};

/**
 * The jobs side of the broker: `jobs.enqueue` and `jobs.get` behind the runtime contract, the
 * history behind the jobs API, and the current queue and cron declarations. Workers
 * ({@link JobWorker}) and the cron scheduler share it. The file service pins the files of an
 * enqueue's delegated read grant; each attempt carries the grant in its invocation.
 *
 * @example
 * ```ts
 * const jobs = new JobService(db, files);
 * await jobs.configure({ queues: manifest.queues, cron: manifest.cron });
 * const { job } = await jobs.enqueue('emails', { payload: { to: 'a@b.c' }, idempotencyKey: 'welcome-42' });
 * ```
 */
export class JobService {
  readonly db: Database;
  readonly scope: JobScope;
  readonly clock: Clock;
  readonly #files: FileService;
  #queues = new Map<string, QueueDeclaration>();
  #cron = new Map<string, CronDeclaration>();
  readonly #listeners = new Set<() => void>();

  constructor(db: Database, files: FileService, options: JobServiceOptions = {}) {
    this.db = db;
    this.#files = files;
    this.scope = options.scope ?? localScope;
    this.clock = options.clock ?? systemClock;
  }

  /** Throws `APP_NOT_FOUND` unless `appId` is the app this service serves (broker API paths). */
  checkApp(appId: string): void {
    if (appId !== this.scope.appId) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: `This broker serves app "${this.scope.appId}", not "${appId}".`,
        details: { appId },
      });
    }
  }

  /**
   * Sets the active declarations (at start and whenever platform.yaml changes). Pending jobs of
   * a queue that is no longer declared, and pending runs of a removed cron schedule, are
   * dead-lettered with `QUEUE_NOT_ACTIVE`.
   */
  async configure(declarations: JobDeclarations): Promise<{ deadLettered: string[] }> {
    this.#queues = new Map(declarations.queues.map((q) => [q.name, q]));
    this.#cron = new Map(declarations.cron.map((c) => [c.name, c]));
    const now = this.clock.now();
    const jobs = await deadLetterInactive(
      this.db,
      this.scope,
      'job',
      [...this.#queues.keys()],
      now,
    );
    const runs = await deadLetterInactive(this.db, this.scope, 'cron', [...this.#cron.keys()], now);
    this.#notify();
    return { deadLettered: [...jobs, ...runs] };
  }

  /** The declared queues. */
  get queues(): readonly QueueDeclaration[] {
    return [...this.#queues.values()];
  }

  /** The declared cron schedules. */
  get cron(): readonly CronDeclaration[] {
    return [...this.#cron.values()];
  }

  /** Whether rows of `kind` in `queue` (a queue name or a cron schedule name) are still declared. */
  isActive(kind: 'job' | 'cron', queue: string): boolean {
    return kind === 'job' ? this.#queues.has(queue) : this.#cron.has(queue);
  }

  /**
   * `jobs.enqueue`: checks the queue, the payload size, the delay and the file grant, then
   * inserts the job or returns the original one for a repeated idempotency key. `by` is the
   * identity the enqueue runs as: a user delegates the grant's files, and the consumer's reads
   * under it end when that user loses access to the app; the system's grants end only by expiry.
   */
  async enqueue(
    queue: string,
    request: EnqueueRequest,
    by?: Caller,
  ): Promise<{ job: Job; created: boolean }> {
    const declaration = this.#queues.get(queue);
    if (!declaration) {
      throw new PlatformError({
        code: 'QUEUE_NOT_DECLARED',
        message: `No queue named "${queue}" is declared in platform.yaml.`,
        details: { queue },
      });
    }
    const size = jsonByteLength(request.payload);
    if (size > limits.jobs.payloadMaxBytes) {
      throw new PlatformError({
        code: 'LIMIT_EXCEEDED',
        message: `The job payload is ${size} bytes of JSON; at most ${limits.jobs.payloadMaxBytes} are allowed.`,
        details: { field: 'payload', size, limit: limits.jobs.payloadMaxBytes },
      });
    }
    const delaySeconds = request.delaySeconds ?? 0;
    if (delaySeconds > limits.jobs.delayMaxSeconds) {
      throw new PlatformError({
        code: 'LIMIT_EXCEEDED',
        message: `delaySeconds may be at most ${limits.jobs.delayMaxSeconds} (seven days).`,
        details: { field: 'delaySeconds', limit: limits.jobs.delayMaxSeconds },
      });
    }
    const files = request.files ? await this.#files.pinGrant(request.files.read) : null;
    const { row, created } = await insertJob(
      this.db,
      this.scope,
      {
        kind: 'job',
        queue,
        payload: request.payload,
        idempotencyKey: request.idempotencyKey,
        delaySeconds,
        policy: policyOf(declaration),
        files,
        grantUserId: by?.kind === 'user' ? by.userId : null,
      },
      this.clock.now(),
    );
    if (created) this.#notify();
    return { job: toJob(row), created };
  }

  /** `jobs.get`: a job of this scope, or `JOB_NOT_FOUND`. */
  async get(id: string): Promise<Job> {
    const row = await findJob(this.db, this.scope, 'job', id);
    if (!row) {
      throw new PlatformError({
        code: 'JOB_NOT_FOUND',
        message: 'No job with this id exists in this app.',
        details: { id },
      });
    }
    return toJob(row);
  }

  /**
   * Runs a dead-lettered job again (the console's Retry): queued now, from its first attempt,
   * with its payload, policy and file grant as they were. Another state is `INVALID_INPUT`.
   */
  async retry(id: string): Promise<Job> {
    const job = await this.#change(
      id,
      `state = 'queued', attempt = 0, run_at = $6, updated_at = $6, started_at = NULL,
       finished_at = NULL, last_error = NULL`,
      ['dead_lettered'],
      [],
    );
    this.#notify();
    return job;
  }

  /**
   * Cancels a pending job (queued or waiting for a retry): dead-lettered with `JOB_CANCELLED`,
   * so it never runs. A running or finished job is `INVALID_INPUT`.
   */
  cancel(id: string): Promise<Job> {
    const error = {
      code: 'JOB_CANCELLED',
      message: 'Cancelled by the app’s owner before it ran.',
      status: 409,
    };
    return this.#change(
      id,
      `state = 'dead_lettered', updated_at = $6, finished_at = $6, last_error = $7::jsonb`,
      ['queued', 'retry_wait'],
      [JSON.stringify(error)],
    );
  }

  // One state change of one job, only from `from`: a job that moved meanwhile is refused.
  async #change(
    id: string,
    set: string,
    from: readonly string[],
    extra: readonly unknown[],
  ): Promise<Job> {
    const current = await this.get(id);
    const { rows } = await this.db.query<JobRow>(
      `UPDATE platform.jobs SET ${set}
        WHERE ${scopeSql} AND kind = 'job' AND id = $4 AND state = ANY($5::text[])
        RETURNING ${jobColumns}`,
      [...scopeParams(this.scope), id, from, this.clock.now(), ...extra],
    );
    const row = rows[0];
    if (!row) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `Job ${id} is ${current.state}; this works only on a job that is ${from.join(' or ')}.`,
        details: { id, state: current.state },
      });
    }
    return toJob(row);
  }

  /** A page of job history (the jobs API). */
  list(query: JobListQuery): Promise<JobPage> {
    return listJobs(this.db, this.scope, query);
  }

  /** Calls `listener` whenever new work may be due (an enqueue, a new declaration). */
  onWork(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the workers that new work may be due. */
  notify(): void {
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
