import type { Queryable } from '../db/database.ts';

/**
 * Deletes rows of one platform table, `where` its condition (all rows without one). A table
 * that is not there is skipped: a broker running alone keeps the accounts side in the app's own
 * database, whose schema has no organisation or integration tables.
 *
 * @example
 * ```ts
 * await eraseRows(tx, 'app_editors', 'account_id = $1', [person.accountId]);
 * ```
 */
export async function eraseRows(
  tx: Queryable,
  table: string,
  where?: string,
  params: readonly unknown[] = [],
): Promise<void> {
  if (!(await tableExists(tx, table))) return;
  await tx.query(`DELETE FROM platform.${table}${where ? ` WHERE ${where}` : ''}`, params);
}

/** Whether the platform table exists in this database (a lone broker's lacks some). */
export async function tableExists(tx: Queryable, table: string): Promise<boolean> {
  const { rows } = await tx.query<{ found: string | null }>(
    'SELECT to_regclass($1)::text AS found',
    [`platform.${table}`],
  );
  return rows[0]?.found != null;
}
