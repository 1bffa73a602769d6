import { PlatformError } from '@platform/errors';
import { jobStates } from '@platform/schema/contract';
import type { Database } from '../db/database.ts';
import type { JobScope } from './job-policy.ts';
import { type Job, type JobRow, jobColumns, toJob } from './job-rows.ts';
import { scopeParams, scopeSql } from './job-store.ts';

/** Filters of `GET /v1/apps/:appId/jobs`. */
export interface JobListQuery {
  /** Created at or after (inclusive). */
  readonly from?: Date | undefined;
  /** Created at or before (inclusive). */
  readonly to?: Date | undefined;
  readonly queue?: string | undefined;
  readonly state?: Job['state'] | undefined;
  /** 1 to {@link JOB_PAGE_MAX}. @default {@link JOB_PAGE_DEFAULT} */
  readonly limit?: number | undefined;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string | undefined;
}

/** One page of job history, newest first. */
export interface JobPage {
  readonly jobs: Job[];
  /** Pass as `cursor` for the next (older) page; `null` on the last page. */
  readonly nextCursor: string | null;
}

/** Largest page (the dashboard offers 10, 25, 50 and 100 rows). */
export const JOB_PAGE_MAX = 100;
/** Page size when `limit` is absent. */
export const JOB_PAGE_DEFAULT = 25;

const invalid = (message: string, field: string) =>
  new PlatformError({ code: 'INVALID_INPUT', message, details: { field } });

const encodeCursor = (row: JobRow): string =>
  Buffer.from(JSON.stringify([new Date(row.created_at).toISOString(), row.id])).toString(
    'base64url',
  );

function decodeCursor(cursor: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[1] === 'string') {
      const at = new Date(String(value[0]));
      if (!Number.isNaN(at.getTime())) return [at.toISOString(), value[1]];
    }
  } catch {
    // Falls through to the error below: a cursor is only ever one we issued.
  }
  throw invalid('cursor is not a cursor this API returned.', 'cursor');
}

/**
 * An ISO 8601 query value (a date, or a date and time with its zone) as a `Date`; `undefined`
 * when absent or empty. Anything else is `INVALID_INPUT` naming `field`.
 */
export function parseQueryTime(text: string | undefined, field: string): Date | undefined {
  if (text === undefined || text === '') return undefined;
  // ISO 8601: a date, or a date and time with its zone; Date.parse alone accepts too much.
  // A time needs its zone: a bare local time would depend on the broker machine's zone.
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(text)) {
    throw invalid(`${field} must be an ISO 8601 time such as 2025-01-31T09:00:00Z.`, field);
  }
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw invalid(`${field} is not a valid time.`, field);
  return at;
}

/**
 * Reads the query string of the jobs API into a {@link JobListQuery}; every malformed value is
 * `INVALID_INPUT` with `details.field`.
 */
export function parseJobListQuery(
  query: Readonly<Record<string, string | undefined>>,
): JobListQuery {
  const state = query.state || undefined;
  if (state !== undefined && !(jobStates as readonly string[]).includes(state)) {
    throw invalid(`state must be one of ${jobStates.join(', ')}.`, 'state');
  }
  let limit: number | undefined;
  if (query.limit !== undefined && query.limit !== '') {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > JOB_PAGE_MAX) {
      throw invalid(`limit must be an integer from 1 to ${JOB_PAGE_MAX}.`, 'limit');
    }
  }
  const from = parseQueryTime(query.from, 'from');
  const to = parseQueryTime(query.to, 'to');
  if (from && to && from > to) throw invalid('from must not be later than to.', 'from');
  return {
    from,
    to,
    queue: query.queue || undefined,
    state: state as Job['state'] | undefined,
    limit,
    cursor: query.cursor || undefined,
  };
}

/**
 * A page of the scope's job history (queue jobs only, never cron runs), newest first, with
 * `from`/`to` inclusive on the creation time. Keyset pagination on `(created_at, id)`, so pages
 * stay stable while new jobs arrive.
 */
export async function listJobs(
  db: Database,
  scope: JobScope,
  query: JobListQuery,
): Promise<JobPage> {
  const limit = query.limit ?? JOB_PAGE_DEFAULT;
  const params: unknown[] = scopeParams(scope);
  const where = [scopeSql, `kind = 'job'`];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (query.from) add('created_at >= ?::timestamptz', query.from.toISOString());
  if (query.to) add('created_at <= ?::timestamptz', query.to.toISOString());
  if (query.queue) add('queue = ?', query.queue);
  if (query.state) add('state = ?', query.state);
  if (query.cursor) {
    const [at, id] = decodeCursor(query.cursor);
    params.push(at, id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const { rows } = await db.query<JobRow>(
    `SELECT ${jobColumns} FROM platform.jobs WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    jobs: page.map(toJob),
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
}
