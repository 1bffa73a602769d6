import type { Caller } from '../kernel/caller.ts';
import { dbRoles } from './bootstrap.ts';
import { claimSettings } from './claim-settings.ts';
import type { Database, Transaction } from './database.ts';

/** The claims `auth.*()` read for `caller` (the `request.jwt.claims` setting). */
export function claimsFor(caller: Caller): Record<string, string> {
  switch (caller.kind) {
    case 'user':
      return { sub: caller.userId, role: 'authenticated' };
    case 'anonymous':
      return { role: 'anon' };
    case 'system':
      return caller.connectionId === undefined
        ? { role: 'system' }
        : { role: 'system', connection_id: caller.connectionId };
  }
}

/** The database role a caller's statements run as. */
export function roleFor(caller: Caller): string {
  return dbRoles[caller.kind === 'user' ? 'user' : caller.kind];
}

/**
 * Runs `fn` in a transaction as `caller`: `SET LOCAL ROLE` to the caller's role, and
 * `request.jwt.claims` with each claim's own setting (`claimSettings`) set for the transaction
 * only, so row-level security policies and `auth.uid()`, `auth.is_system()`,
 * `auth.connection_id()` see the caller. Every setting ends with the transaction, so nothing
 * leaks into the next call on the same session.
 *
 * @example
 * ```ts
 * const rows = await runAs(db, caller, (tx) => tx.query('select * from todos'));
 * ```
 */
export function runAs<T>(
  db: Database,
  caller: Caller,
  fn: (tx: Transaction) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await actAs(tx, caller);
    return fn(tx);
  });
}

/**
 * Switches the rest of the transaction to `caller`: its role and every claim setting, all of
 * them, so nothing of a caller before it in the same transaction remains. {@link runAs} starts
 * each transaction with it; a transaction that checks several callers in turn calls it before
 * each one's statements (the broker's own role may take any role at any time).
 */
export async function actAs(tx: Transaction, caller: Caller): Promise<void> {
  // One round trip; set_config('role', ..., true) is SET LOCAL ROLE (as PostgREST does it).
  const claims = claimsFor(caller);
  await tx.query(
    `SELECT set_config('request.jwt.claims', $1, true), set_config('${claimSettings.sub}', $2, true),
            set_config('${claimSettings.role}', $3, true),
            set_config('${claimSettings.connectionId}', $4, true), set_config('role', $5, true)`,
    [
      JSON.stringify(claims),
      claims.sub ?? '',
      claims.role ?? '',
      claims.connection_id ?? '',
      roleFor(caller),
    ],
  );
}
