import type { Database, Session } from './database.ts';

/**
 * One change of the broker's own schema, as a feature writes it in its own folder (for example
 * `files/file-schema.ts`). The composition root numbers it into a {@link SchemaStep}.
 */
export interface SchemaChange {
  /** A short label stored beside the version (`files`, `jobs`), for people reading the table. */
  readonly name: string;
  /**
   * The statements, separated by `;`, without `BEGIN`/`COMMIT` (the step's transaction wraps
   * them). Steps that existed before the schema had versions are idempotent
   * (`CREATE … IF NOT EXISTS`) so that they adopt the tables of an older data directory; later
   * steps are ordinary DDL.
   */
  readonly sql: string;
}

/** A {@link SchemaChange} with its place in the platform schema's history. */
export interface SchemaStep extends SchemaChange {
  /** 1, 2, 3, … in the order the steps run; a step's number never changes once released. */
  readonly version: number;
}

/** What {@link applyPlatformSchema} did. */
export interface PlatformSchemaReport {
  /** The version the database had before (0: none recorded, a new or an older data directory). */
  readonly from: number;
  /** The version it has now: the last step's. */
  readonly to: number;
  /** The steps this call applied, in order (none when the database was up to date). */
  readonly applied: readonly SchemaStep[];
}

/**
 * The name of the advisory lock a broker holds (at session level) while it reads and brings up
 * to date the platform schema: `pg_advisory_lock(hashtext('platform.schema_versions'))`.
 * Brokers sharing one PostgreSQL database take turns, so each step runs once.
 */
export const PLATFORM_SCHEMA_LOCK = 'platform.schema_versions';

/** A step that failed (its DDL and version row were rolled back), or a database too new. */
export class PlatformSchemaError extends Error {
  override readonly name = 'PlatformSchemaError';
  /** The failing step's version, or the database's version when it is newer than the code. */
  readonly version: number;

  constructor(message: string, version: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.version = version;
  }
}

// Created before any step (a step's row needs it), like every statement here: idempotent.
const versionTableSql = `
CREATE SCHEMA IF NOT EXISTS platform;
CREATE TABLE IF NOT EXISTS platform.schema_versions (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`;

/**
 * Throws `TypeError` unless the versions rise strictly from 1 on. A gap is allowed: features
 * built side by side reserve their numbers, and a step is applied by whether its own version
 * is recorded, not by counting, so a database keeps taking the steps below its highest one.
 */
function checkNumbering(steps: readonly SchemaStep[]): void {
  steps.forEach((step, index) => {
    const previous = index === 0 ? 0 : (steps[index - 1] as SchemaStep).version;
    if (!Number.isInteger(step.version) || step.version <= previous) {
      throw new TypeError(
        `Platform schema step "${step.name}" has version ${step.version}; expected more than ${previous} (versions rise from 1 in the order of the steps).`,
      );
    }
  });
}

async function recordedVersions(session: Session): Promise<Set<number>> {
  const { rows } = await session.query<{ version: number }>(
    'SELECT version FROM platform.schema_versions',
  );
  return new Set(rows.map((row) => Number(row.version)));
}

/**
 * Brings the broker's own tables (schema `platform`, plus the roles and `auth.*` functions of
 * the bootstrap) up to the last of `steps`. Under one advisory lock
 * ({@link PLATFORM_SCHEMA_LOCK}) it reads the highest version in `platform.schema_versions`
 * and runs each later step in its own transaction together with its version row, so a failing
 * step leaves nothing behind and is tried again on the next start. A database whose version is
 * higher than the last step's was written by a newer broker: it is refused with
 * {@link PlatformSchemaError} and left untouched.
 *
 * @example
 * ```ts
 * const report = await applyPlatformSchema(db, [{ version: 1, name: 'bootstrap', sql: bootstrapSql }]);
 * // report.applied: the steps that ran now
 * ```
 */
export async function applyPlatformSchema(
  db: Database,
  steps: readonly SchemaStep[],
): Promise<PlatformSchemaReport> {
  checkNumbering(steps);
  return db.session(async (session) => {
    const unlock = () =>
      session.query('SELECT pg_advisory_unlock(hashtext($1))', [PLATFORM_SCHEMA_LOCK]);
    await session.query('SELECT pg_advisory_lock(hashtext($1))', [PLATFORM_SCHEMA_LOCK]);
    let report: PlatformSchemaReport;
    try {
      report = await upgrade(session, steps);
    } catch (error) {
      // The first failure is the one to report; the session drops its connection, lock and all.
      await unlock().catch(() => undefined);
      throw error;
    }
    await unlock();
    return report;
  });
}

/** The work under the lock: the version table, the refusal of a newer database, the steps. */
async function upgrade(
  session: Session,
  steps: readonly SchemaStep[],
): Promise<PlatformSchemaReport> {
  const latest = steps.at(-1)?.version ?? 0;
  await session.exec(versionTableSql);
  const recorded = await recordedVersions(session);
  const from = Math.max(0, ...recorded);
  const known = new Set(steps.map((step) => step.version));
  if (from > latest) {
    throw new PlatformSchemaError(
      `The database's platform schema is at version ${from}, but this broker knows versions up to ${latest}: a newer broker has used this database. Start it with that newer broker.`,
      from,
    );
  }
  const foreign = [...recorded].find((version) => !known.has(version));
  if (foreign !== undefined) {
    throw new PlatformSchemaError(
      `The database's platform schema has step ${foreign}, which this broker does not know: a newer broker has used this database. Start it with that newer broker.`,
      foreign,
    );
  }
  const applied: SchemaStep[] = [];
  for (const step of steps.filter((one) => !recorded.has(one.version))) {
    try {
      await session.transaction(async (tx) => {
        await tx.exec(step.sql);
        await tx.query('INSERT INTO platform.schema_versions (version, name) VALUES ($1, $2)', [
          step.version,
          step.name,
        ]);
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new PlatformSchemaError(
        `Platform schema step ${step.version} (${step.name}) failed: ${reason}`,
        step.version,
        error,
      );
    }
    applied.push(step);
  }
  return { from, to: latest, applied };
}

/** `db` with its platform schema brought up to `steps`; closed again when that fails. */
export async function withPlatformSchema(
  db: Database,
  steps: readonly SchemaStep[],
): Promise<{ db: Database; platformSchema: PlatformSchemaReport }> {
  try {
    return { db, platformSchema: await applyPlatformSchema(db, steps) };
  } catch (error) {
    await db.close();
    throw error;
  }
}
