import { PlatformError } from '@platform/errors';
import type { Hono } from 'hono';
import type { Queryable } from '../db/database.ts';
import { scopeToApp } from '../http/app-scope.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { consoleApiPaths } from '../http/paths.ts';
import { type Caller, userCaller } from '../kernel/caller.ts';
import { dataLimits } from './data-input.ts';
import type { DataService } from './data-service.ts';
import { quoteIdent } from './sql.ts';

/** One row-level security policy of a table, as `pg_policies` states it. */
export interface TablePolicy {
  readonly name: string;
  /** `ALL`, `SELECT`, `INSERT`, `UPDATE` or `DELETE`. */
  readonly command: string;
  readonly roles: readonly string[];
  readonly permissive: boolean;
  /** The `USING` expression, or `null`. */
  readonly using: string | null;
  /** The `WITH CHECK` expression, or `null`. */
  readonly check: string | null;
}

/** An app table as the console's Data section lists it. */
export interface TableSummary {
  readonly name: string;
  readonly rows: number;
  /** Whether row-level security is on: without it every caller sees every row. */
  readonly rowLevelSecurity: boolean;
  readonly policies: readonly TablePolicy[];
}

/** The app's tables (schema `public`, base tables), their exact row counts and policies. */
export async function listTables(db: Queryable): Promise<TableSummary[]> {
  const { rows: tables } = await db.query<{ name: string; rls: boolean }>(
    `SELECT c.relname AS name, c.relrowsecurity AS rls
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r'
      ORDER BY c.relname`,
  );
  const { rows: policies } = await db.query<{
    tablename: string;
    policyname: string;
    cmd: string;
    roles: string[] | string;
    permissive: string;
    qual: string | null;
    with_check: string | null;
  }>(
    `SELECT tablename, policyname, cmd, roles, permissive, qual, with_check
       FROM pg_policies WHERE schemaname = 'public' ORDER BY tablename, policyname`,
  );
  const out: TableSummary[] = [];
  for (const table of tables) {
    const { rows } = await db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM ${quoteIdent(table.name)}`,
    );
    out.push({
      name: table.name,
      rows: Number(rows[0]?.n ?? 0),
      rowLevelSecurity: table.rls,
      policies: policies
        .filter((p) => p.tablename === table.name)
        .map((p) => ({
          name: p.policyname,
          command: p.cmd,
          // pg returns name[] as an array; some drivers hand over its text form `{a,b}`.
          roles: Array.isArray(p.roles) ? p.roles : p.roles.replace(/^\{|\}$/g, '').split(','),
          permissive: p.permissive === 'PERMISSIVE',
          using: p.qual,
          check: p.with_check,
        })),
    });
  }
  return out;
}

const invalid = (field: string, message: string) =>
  new PlatformError({ code: 'INVALID_INPUT', message, details: { field } });

function readInteger(
  value: string | undefined,
  field: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw invalid(field, `${field} is a whole number from ${min} to ${max}.`);
  }
  return n;
}

/**
 * The Data section's owner API (control-plane admission keeps it to the owner and developer):
 *
 * - `GET {tables}`: `{ tables }`, each with its row count, whether RLS is on and its policies;
 * - `GET {tableRows}?limit=&offset=`: a page of rows as the owner (RLS does not apply), ordered
 *   by `id`, with the table's `total`;
 * - `GET {tableRows}?asUser=<uuid>&limit=`: the rows that user sees, read through the data API
 *   the SDK uses (its role and claims, so the table's policies decide), first page only.
 */
export function mountDataBrowser(
  app: Hono<BrokerEnv>,
  services: { readonly appId: string; readonly data: DataService },
): void {
  const { data } = services;
  const db = data.owner;
  scopeToApp(app, services.appId, [consoleApiPaths.tables]);
  app.get(consoleApiPaths.tables, async (c) => c.json({ tables: await listTables(db) }));
  app.get(consoleApiPaths.tableRows, async (c) => {
    const name = c.req.param('table') ?? '';
    // The catalog answers TABLE_NOT_FOUND for anything but an app table of `public`.
    const table = await data.catalog.get(name);
    const limit = readInteger(c.req.query('limit'), 'limit', 1, dataLimits.listMax, 25);
    const asUser = c.req.query('asUser');
    if (asUser) {
      let caller: Caller;
      try {
        caller = userCaller(asUser);
      } catch {
        throw invalid('asUser', `asUser is a user's id (a UUID), got ${JSON.stringify(asUser)}.`);
      }
      const rows = await data.list(caller, name, { limit });
      return c.json({ table: name, asUser: asUser.toLowerCase(), rows, offset: 0, total: null });
    }
    const offset = readInteger(c.req.query('offset'), 'offset', 0, 1_000_000_000, 0);
    const order = table.columns.has('id') ? ' ORDER BY "id"' : '';
    const { rows } = await db.query(
      `SELECT * FROM ${quoteIdent(name)}${order} LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
    const { rows: count } = await db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM ${quoteIdent(name)}`,
    );
    return c.json({ table: name, rows, offset, total: Number(count[0]?.n ?? 0) });
  });
}
