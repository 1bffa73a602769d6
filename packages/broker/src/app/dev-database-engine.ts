/** Where `platform dev` keeps its databases (docs/dev-database.md). */
export type DevDatabaseEngine = 'pglite' | 'cluster';

/** The engines `--database` and `PLATFORM_DEV_DATABASE` accept. */
export const DEV_DATABASE_ENGINES: readonly DevDatabaseEngine[] = ['pglite', 'cluster'];

/**
 * The engine asked for: `chosen` when given, else `PLATFORM_DEV_DATABASE`, else PGlite. Throws
 * on a value that names no engine.
 */
export function devDatabaseEngine(
  chosen: DevDatabaseEngine | undefined,
  env: NodeJS.ProcessEnv = process.env,
): DevDatabaseEngine {
  const value = chosen ?? (env.PLATFORM_DEV_DATABASE || 'pglite');
  if (!(DEV_DATABASE_ENGINES as readonly string[]).includes(value)) {
    throw new Error(
      `PLATFORM_DEV_DATABASE must be ${DEV_DATABASE_ENGINES.join(' or ')}, not "${value}".`,
    );
  }
  return value as DevDatabaseEngine;
}

/** What decides whether a start runs its own private cluster. */
export interface ClusterChoice {
  readonly database?: DevDatabaseEngine | undefined;
  /** A PostgreSQL server given instead (`DATABASE_URL`): it wins. */
  readonly databaseUrl?: string | undefined;
  readonly inMemory?: boolean | undefined;
}

/**
 * Whether this start runs a private cluster: the cluster engine is chosen, the databases are
 * kept on disk, and no PostgreSQL server is given (`databaseUrl`, else `DATABASE_URL`).
 */
export function usesPrivateCluster(choice: ClusterChoice): boolean {
  const url = choice.databaseUrl === undefined ? process.env.DATABASE_URL : choice.databaseUrl;
  return devDatabaseEngine(choice.database) === 'cluster' && !choice.inMemory && !url;
}
