import type { Caller } from '../kernel/caller.ts';
import { dbRoles } from './bootstrap.ts';
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
 * Runs `fn` in a transaction as `caller`: `SET LOCAL ROLE` to the caller's role and
 * `request.jwt.claims` set for the transaction only, so row-level security policies and
 * `auth.uid()`, `auth.is_system()`, `auth.connection_id()` see the caller. Both settings end
 * with the transaction, so nothing leaks into the next call on the same session.
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
    // One round trip; set_config('role', ..., true) is SET LOCAL ROLE (as PostgREST does it).
    await tx.query(
      "SELECT set_config('request.jwt.claims', $1, true), set_config('role', $2, true)",
      [JSON.stringify(claimsFor(caller)), roleFor(caller)],
    );
    return fn(tx);
  });
}
