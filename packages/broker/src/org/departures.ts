import { PlatformError } from '@platform/errors';
import type { Queryable } from '../db/database.ts';
import { tableExists } from '../feature/erase-rows.ts';

/** What a member's departure with their deleted account changed. */
export interface Departure {
  /** The apps the member owned, now owned by {@link Departure.heir}. */
  readonly apps: readonly string[];
  /** The administrator who owns them now; `undefined` when the member owned none. */
  readonly heir: string | undefined;
}

/**
 * A member leaves the organisation with their deleted account (spec 3.5): the organisation's apps
 * stay, so each app they owned passes to the organisation's longest-standing other
 * administrator (recorded in the authority facts, `platform.apps`). The address signing up
 * again makes a new account in a personal company of its own, like any stranger's: only an
 * administrator's invitation lets it back. Run it in the deletion's transaction, after the
 * last-administrator rule (`keepAnAdministrator`), so an administrator to pass the apps to
 * exists; without one the apps cannot stay and it refuses with `ACCOUNT_OWNS_APPS`.
 *
 * @example
 * ```ts
 * await central.transaction(async (tx) => {
 *   await keepAnAdministrator(tx, member);
 *   const { apps, heir } = await depart(tx, member);
 * });
 * ```
 */
export async function depart(
  tx: Queryable,
  leaving: { readonly accountId: string; readonly email: string },
): Promise<Departure> {
  // A broker started alone keeps no authority facts: its owner is its configuration.
  const { rows } = (await tableExists(tx, 'apps'))
    ? await tx.query<{ app_id: string }>(
        'SELECT app_id FROM platform.apps WHERE owner_account_id = $1 ORDER BY app_id',
        [leaving.accountId],
      )
    : { rows: [] };
  const apps = rows.map((row) => row.app_id);
  let heir: string | undefined;
  if (apps.length > 0) {
    const { rows: admins } = await tx.query<{ account_id: string }>(
      `SELECT account_id::text FROM platform.memberships
       WHERE role = 'administrator' AND account_id <> $1
       ORDER BY joined_at, account_id LIMIT 1`,
      [leaving.accountId],
    );
    heir = admins[0]?.account_id;
    if (heir === undefined) {
      throw new PlatformError({
        code: 'ACCOUNT_OWNS_APPS',
        message: `You own ${apps.join(', ')}, and the organisation has no other administrator to own them: make another member administrator first (platform org role <email> administrator).`,
        details: { apps },
      });
    }
    await tx.query('UPDATE platform.apps SET owner_account_id = $2 WHERE owner_account_id = $1', [
      leaving.accountId,
      heir,
    ]);
  }
  return { apps, heir };
}
