import type { CronDeclaration } from '@platform/schema/manifest';
import type { Database } from '../../db/database.ts';
import type { JobScope, StoredError } from '../job-policy.ts';
import type { Job } from '../job-rows.ts';
import { scopeParams, scopeSql } from '../job-store.ts';

/** The latest run of a schedule, scheduled or manual. */
export interface CronRunSummary {
  /** The run's id (a row of the job engine, kind `cron`). */
  readonly id: string;
  /** The occurrence it ran for (the trigger time of a manual run), ISO 8601. */
  readonly scheduledAt: string;
  /** `true` for `platform cron run` (the manual trigger). */
  readonly manual: boolean;
  readonly state: Job['state'];
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly lastError: { readonly code: string; readonly message: string } | null;
}

/** One declared schedule as `GET /v1/apps/:appId/cron` and the dashboard show it. */
export interface CronSummary {
  readonly name: string;
  readonly schedule: string;
  readonly timezone: string;
  readonly function: string;
  readonly enabled: boolean;
  /** The latest run, or `null` when it never ran (within the 14 days records are kept). */
  readonly lastRun: CronRunSummary | null;
  /** The next scheduled occurrence, ISO 8601; `null` when disabled. */
  readonly nextRunAt: string | null;
}

interface RunRow {
  id: string;
  queue: string;
  scheduled_at: string | null;
  manual: boolean;
  state: Job['state'];
  created_at: Date | string;
  finished_at: Date | string | null;
  last_error: StoredError | null;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

const runColumns = `id, queue, payload->>'scheduledAt' AS scheduled_at,
  idempotency_key LIKE 'manual:%' AS manual, state, created_at, finished_at, last_error`;

const toRun = (run: RunRow): CronRunSummary => ({
  id: run.id,
  scheduledAt: run.scheduled_at ?? iso(run.created_at),
  manual: run.manual,
  state: run.state,
  createdAt: iso(run.created_at),
  finishedAt: run.finished_at === null ? null : iso(run.finished_at),
  lastError:
    run.last_error === null ? null : { code: run.last_error.code, message: run.last_error.message },
});

/**
 * The declared schedules with their latest run and next occurrence. A cron run's input is the
 * broker's own envelope, so reading its `scheduledAt` exposes nothing of the app's data.
 *
 * @example
 * ```ts
 * const schedules = await summarizeCron(db, localScope, manifest.cron, (c) => scheduler.nextRun(c));
 * ```
 */
export async function summarizeCron(
  db: Database,
  scope: JobScope,
  declarations: readonly CronDeclaration[],
  nextRun: (declaration: CronDeclaration) => Date | null,
): Promise<CronSummary[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT DISTINCT ON (queue) ${runColumns} FROM platform.jobs WHERE ${scopeSql} AND kind = 'cron'
     ORDER BY queue, created_at DESC, id DESC`,
    scopeParams(scope),
  );
  const latest = new Map(rows.map((row) => [row.queue, row]));
  return declarations.map((c) => {
    const run = latest.get(c.name);
    const next = nextRun(c);
    return {
      name: c.name,
      schedule: c.schedule,
      timezone: c.timezone,
      function: c.function,
      enabled: c.enabled,
      lastRun: run ? toRun(run) : null,
      nextRunAt: next ? next.toISOString() : null,
    };
  });
}

/** One cron run of the scope by id (`platform cron run --wait` follows it), or `undefined`. */
export async function findCronRun(
  db: Database,
  scope: JobScope,
  id: string,
): Promise<(CronRunSummary & { readonly name: string }) | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${runColumns} FROM platform.jobs WHERE ${scopeSql} AND kind = 'cron' AND id = $4`,
    [...scopeParams(scope), id],
  );
  const run = rows[0];
  return run ? { name: run.queue, ...toRun(run) } : undefined;
}
