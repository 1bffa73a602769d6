/** The database of app `appId` on a shared PostgreSQL server: `platform_app_<appId>`. */
export const appDatabaseName = (appId: string): string =>
  `platform_app_${appId.replaceAll('-', '_')}`;

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
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new TypeError(`Not a plain database name: ${name}`);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${name}`).catch((error: { code?: string }) => {
        // duplicate_database: another start made it meanwhile.
        if (error.code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}
