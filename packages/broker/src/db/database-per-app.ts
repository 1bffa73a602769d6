/** The database of app `appId` on a shared PostgreSQL server: `platform_app_<appId>`. */
export const appDatabaseName = (appId: string): string =>
  `platform_app_${appId.replaceAll('-', '_')}`;

/** `url` with database `name` in its path. */
export function databaseUrl(url: string, name: string): string {
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}

/**
 * `name` when it is a plain lower-case identifier (what {@link appDatabaseName} makes), which is
 * safe unquoted in `CREATE`/`DROP DATABASE`; a `TypeError` otherwise.
 */
export function checkDatabaseName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new TypeError(`Not a plain database name: ${name}`);
  }
  return name;
}

/** What {@link withServer} lends its `work`: one connection's queries. */
export interface ServerClient {
  query(sql: string, values?: unknown[]): Promise<{ rowCount: number | null }>;
}

/**
 * Runs `work` on a connection of its own to the database `url` names (outside any pool, as
 * `CREATE DATABASE` and `DROP DATABASE` need), closed afterwards.
 */
export async function withServer<T>(
  url: string,
  work: (client: ServerClient) => Promise<T>,
): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether the server `url` names has a database `name`. */
export const databaseExists = (url: string, name: string): Promise<boolean> =>
  withServer(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return (found.rowCount ?? 0) > 0;
  });

/** Drops database `name` of the server `url` names, if it exists, ending its connections. */
export async function dropDatabase(url: string, name: string): Promise<void> {
  checkDatabaseName(name);
  await withServer(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * The URL of database `name` on the server `url` names, creating the database when it is
 * missing (a workspace of several apps gives each app its own database, docs/organisations.md).
 * `name` must be a plain lower-case identifier. Two starts creating it at once both succeed.
 *
 * @example
 * ```ts
 * const url = await ensureDatabase(process.env.DATABASE_URL, appDatabaseName('notes'));
 * ```
 */
export async function ensureDatabase(url: string, name: string): Promise<string> {
  checkDatabaseName(name);
  await withServer(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${name}`).catch((error: { code?: string }) => {
        // duplicate_database: another start made it meanwhile.
        if (error.code !== '42P04') throw error;
      });
    }
  });
  return databaseUrl(url, name);
}
