import { PlatformError } from '@platform/errors';
import { type Database, DatabaseError, type Transaction } from '../db/database.ts';
import { runAs } from '../db/run-as.ts';
import type { Caller } from '../kernel/caller.ts';
import { toDataError } from './pg-errors.ts';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

interface RpcShape {
  /** `returns setof ...` / `returns table (...)`: an array of rows. */
  readonly set: boolean;
  /** A composite result (`returns notes`): one row object. */
  readonly row: boolean;
  /** `stable` or `immutable`: cannot write, so anonymous callers may call it. */
  readonly readOnly: boolean;
}

const quote = (name: string): string => `"${name}"`;

function notFound(name: string, message?: string): PlatformError {
  return new PlatformError({
    code: 'RPC_NOT_FOUND',
    message:
      message ??
      `No database function "${name}" in the public schema; create it in a migration (docs/broker.md, "Database RPC").`,
    details: { function: name },
  });
}

async function shapeOf(tx: Transaction, name: string): Promise<RpcShape | undefined> {
  const { rows } = await tx.query<{ set: boolean; row: boolean; read_only: boolean }>(
    `SELECT p.proretset AS set, t.typtype = 'c' AS row, p.provolatile <> 'v' AS read_only
       FROM pg_catalog.pg_proc p
       JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
       JOIN pg_catalog.pg_type t ON t.oid = p.prorettype
      WHERE n.nspname = 'public' AND p.proname = $1 AND p.prokind = 'f'`,
    [name],
  );
  if (rows.length === 0) return undefined;
  // Overloads: a set or row result if any has one; read-only only if every one is.
  return {
    set: rows.some((r) => r.set),
    row: rows.some((r) => r.row),
    readOnly: rows.every((r) => r.read_only),
  };
}

// Arguments are JSON: strings, numbers, booleans and null go as they are, objects and arrays as
// JSON text (for json and jsonb parameters); PostgreSQL casts each to the parameter's type.
const toParam = (value: unknown): unknown =>
  value !== null && typeof value === 'object' ? JSON.stringify(value) : value;

function toRpcError(error: unknown, name: string, args: readonly string[]): PlatformError {
  if (error instanceof PlatformError) return error;
  const state = DatabaseError.from(error)?.sqlState;
  if (state === '42883') {
    return notFound(
      name,
      `The database function "${name}" takes no arguments named (${args.join(', ') || 'none'}): pass its parameter names as the keys of the JSON body.`,
    );
  }
  if (state === '42725') {
    return new PlatformError({
      code: 'INVALID_INPUT',
      message: `The arguments match more than one overload of "${name}"; name every argument.`,
      details: { function: name },
    });
  }
  if (state === 'P0001') {
    // The function's own `raise exception`: its message is written by the app for its callers.
    return new PlatformError({
      code: 'RPC_FAILED',
      message: DatabaseError.from(error)?.message ?? `The database function "${name}" failed.`,
      details: { function: name },
      cause: error,
    });
  }
  return toDataError(error, name);
}

/**
 * `POST {app_url}/rest/v1/rpc/<function>` (spec 2.2): calls a function of the app's `public`
 * schema with the JSON body as named arguments, in a transaction as `caller`, so RLS and grants
 * apply as for REST. A set-returning function answers an array of rows, a composite result one
 * row, a scalar the value, a `void` function `null`. Anonymous callers may call only `stable` or
 * `immutable` functions (which cannot write: data writes need a user, spec 5.1.5).
 *
 * @example
 * ```ts
 * await callRpc(db, caller, 'notes_by_word', { word: 'milk' }); // [{ id, body }, ...]
 * ```
 */
export async function callRpc(
  db: Database,
  caller: Caller,
  name: string,
  body: unknown,
): Promise<unknown> {
  if (!IDENTIFIER.test(name)) throw notFound(name);
  const args = body === undefined ? {} : body;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: 'The body of an RPC call is a JSON object of named arguments.',
      details: { function: name },
    });
  }
  const names = Object.keys(args);
  const bad = names.find((n) => !IDENTIFIER.test(n));
  if (bad !== undefined) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: `"${bad}" is not a parameter name.`,
      details: { function: name },
    });
  }
  try {
    return await runAs(db, caller, async (tx) => {
      const shape = await shapeOf(tx, name);
      if (!shape) throw notFound(name);
      if (caller.kind === 'anonymous' && !shape.readOnly) {
        throw new PlatformError({
          code: 'AUTH_REQUIRED',
          message: `"${name}" may change data (it is not stable or immutable): sign in first.`,
          details: { function: name },
        });
      }
      const list = names.map((n, i) => `${quote(n)} => $${i + 1}`).join(', ');
      const call = `"public".${quote(name)}(${list})`;
      const values = names.map((n) => toParam((args as Record<string, unknown>)[n]));
      if (shape.set || shape.row) {
        const { rows } = await tx.query<Record<string, unknown>>(`SELECT * FROM ${call}`, values);
        return shape.set ? rows : (rows[0] ?? null);
      }
      const { rows } = await tx.query<{ value: unknown }>(`SELECT ${call} AS value`, values);
      return rows[0]?.value ?? null;
    });
  } catch (error) {
    throw toRpcError(error, name, names);
  }
}
