import { paramFor, quoteIdent, type Where } from '../data/sql.ts';
import type { TableInfo } from '../data/table-catalog.ts';
import type { Database, Queryable } from '../db/database.ts';
import { actAs, roleFor } from '../db/run-as.ts';
import type { Caller } from '../kernel/caller.ts';

/** A row as the subscriber may read it. */
export type Row = Record<string, unknown>;

/** The `SELECT` policies of a table that apply to one database role, as SQL conditions. */
interface ReadPolicies {
  /** Row-level security is on: the policies decide. Off: the table privilege alone does. */
  readonly enabled: boolean;
  readonly permissive: readonly string[];
  readonly restrictive: readonly string[];
}

function whereSql(info: TableInfo, where: Where, values: unknown[], alias: string): string {
  return Object.entries(where)
    .map(([name, value]) => {
      const column = `${alias}.${quoteIdent(name)}`;
      if (value === null) return `${column} IS NULL`;
      const info_ = info.columns.get(name);
      values.push(info_ ? paramFor(info_, value) : value);
      return `${column} = $${values.length}`;
    })
    .join(' AND ');
}

/**
 * Who may see which changed row, decided as the subscriber and never with the broker's own
 * privileges:
 *
 * - the row after the change: a `SELECT` of it by id, as the subscriber (role and claims, so
 *   the table's RLS policies and column grants apply as they would to the subscriber's own
 *   query), with the subscription's filter;
 * - the row before an update or a delete, which no longer exists to be selected: the table's
 *   own `SELECT` policies for the subscriber's role (`pg_policies`: permissive ones OR-ed,
 *   restrictive ones AND-ed, as PostgreSQL combines them), evaluated as the subscriber on the old
 *   row as the capture trigger recorded it, with the filter.
 */
export class RowVisibility {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * The row with this id as each viewer sees it (and matching its filter), or `undefined`: in one
   * transaction that acts as each viewer in turn (its role and claims set afresh before its
   * statement), one transaction per change instead of one per subscriber. Answers in the order
   * of `viewers`.
   */
  currentMany(
    viewers: readonly { readonly caller: Caller; readonly where: Where }[],
    info: TableInfo,
    id: string,
  ): Promise<(Row | undefined)[]> {
    return this.#db.transaction(async (tx) => {
      const rows: (Row | undefined)[] = [];
      for (const { caller, where } of viewers) {
        await actAs(tx, caller);
        rows.push(await selectCurrent(tx, info, id, where));
      }
      return rows;
    });
  }

  /** Whether each viewer could see `old` (the row before the change), likewise. */
  beforeMany(
    viewers: readonly { readonly caller: Caller; readonly where: Where }[],
    info: TableInfo,
    old: Row,
  ): Promise<boolean[]> {
    return this.#db.transaction(async (tx) => {
      const seen: boolean[] = [];
      for (const { caller, where } of viewers) {
        await actAs(tx, caller);
        seen.push(await visibleBefore(tx, roleFor(caller), info, old, where));
      }
      return seen;
    });
  }
}

async function selectCurrent(
  tx: Queryable,
  info: TableInfo,
  id: string,
  where: Where,
): Promise<Row | undefined> {
  const values: unknown[] = [id];
  const filter = whereSql(info, where, values, 't');
  const sql = `SELECT t.* FROM public.${quoteIdent(info.name)} AS t WHERE t."id" = $1${filter ? ` AND ${filter}` : ''}`;
  return (await tx.query<Row>(sql, values)).rows[0];
}

async function visibleBefore(
  tx: Queryable,
  role: string,
  info: TableInfo,
  old: Row,
  where: Where,
): Promise<boolean> {
  const policies = await readPolicies(tx, info.name, role);
  const table = `public.${quoteIdent(info.name)}`;
  const values: unknown[] = [JSON.stringify(old), table];
  const alias = quoteIdent(info.name);
  const conditions: string[] = [];
  if (policies.enabled) {
    // No permissive policy for the role: PostgreSQL shows no row at all.
    if (policies.permissive.length === 0) return false;
    conditions.push(`(${policies.permissive.map((p) => `(${p})`).join(' OR ')})`);
    for (const restrictive of policies.restrictive) conditions.push(`(${restrictive})`);
  }
  const filter = whereSql(info, where, values, alias);
  if (filter) conditions.push(filter);
  const sql = `SELECT has_table_privilege(current_user, $2::regclass, 'SELECT')
        AND EXISTS (SELECT 1 FROM jsonb_populate_record(NULL::${table}, $1::jsonb) AS ${alias}
                    WHERE ${conditions.length > 0 ? conditions.join(' AND ') : 'true'}) AS visible`;
  const { rows } = await tx.query<{ visible: boolean }>(sql, values);
  return rows[0]?.visible === true;
}

/**
 * The table's `SELECT` policies for `role`, read inside the subscriber's transaction. A policy
 * without a `USING` condition shows nothing here (PostgreSQL requires one to read).
 */
async function readPolicies(tx: Queryable, table: string, role: string): Promise<ReadPolicies> {
  const { rows } = await tx.query<{
    enabled: boolean;
    permissive: string | null;
    qual: string | null;
  }>(
    `SELECT c.relrowsecurity AS enabled, p.permissive, p.qual
       FROM pg_catalog.pg_class c
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       LEFT JOIN pg_catalog.pg_policies p
         ON p.schemaname = 'public' AND p.tablename = c.relname AND p.cmd IN ('SELECT', 'ALL')
        AND (p.roles @> ARRAY[$2]::name[] OR p.roles @> ARRAY['public']::name[])
      WHERE c.relname = $1`,
    [table, role],
  );
  const enabled = rows[0]?.enabled === true;
  const permissive: string[] = [];
  const restrictive: string[] = [];
  for (const row of rows) {
    if (row.permissive === null) continue;
    const condition = row.qual ?? 'false';
    (row.permissive === 'RESTRICTIVE' ? restrictive : permissive).push(condition);
  }
  return { enabled, permissive, restrictive };
}
