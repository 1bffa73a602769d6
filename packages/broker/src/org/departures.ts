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

// The digest a departure keeps of an address, the same one the join trigger computes.
const DIGEST = "encode(sha256(convert_to(lower($1), 'UTF8')), 'hex')";

/**
 * A member leaves the organisation with their deleted account (spec 3.5): the organisation's apps
 * stay, so each app they owned passes to the organisation's longest-standing other
 * administrator (recorded in the authority facts, `platform.apps`), and a digest of the address
 * is kept so that it does not rejoin by signing up again; an administrator's invitation
 * ({@link readmit}) lets it back. Run it in the deletion's transaction, after the
 * last-administrator rule (`keepAnAdministrator`), so an administrator to pass the apps to
 * exists; without one the apps cannot stay and it refuses with `ACCOUNT_OWNS_APPS`.
 *
 * @example
 * ```ts
 * await central.transaction(async (tx) => {
 *   await keepAnAdministrator(tx, member);
 *   const { apps, heir } = await depart(tx, member, clock.now());
 * });
 * ```
 */
export async function depart(
  tx: Queryable,
  leaving: { readonly accountId: string; readonly email: string },
  at: Date,
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
  await tx.query(
    `INSERT INTO platform.departures (email_digest, departed_at) VALUES (${DIGEST}, $2)
     ON CONFLICT (email_digest) DO UPDATE SET departed_at = EXCLUDED.departed_at`,
    [leaving.email, at],
  );
  return { apps, heir };
}

/**
 * Lets a departed address back (an administrator's invitation): forgets its departure and makes
 * an account that signed up with it meanwhile a member. Resolves to whether such an account
 * joined now.
 */
export async function readmit(tx: Queryable, email: string): Promise<boolean> {
  await tx.query(`DELETE FROM platform.departures WHERE email_digest = ${DIGEST}`, [email]);
  const { rowCount } = await tx.query(
    `INSERT INTO platform.memberships (account_id, role, joined_at)
     SELECT id, 'member', now() FROM platform.accounts WHERE email = $1
     ON CONFLICT (account_id) DO NOTHING`,
    [email],
  );
  return rowCount > 0;
}
