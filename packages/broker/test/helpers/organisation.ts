import type { Broker } from '../../src/app/start-broker.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import type { Database } from '../../src/db/database.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { TestClock } from '../auth/helpers.ts';

/**
 * Confirmed accounts that are all members of the organisation in `central`, by the only way in:
 * the first founds the organisation as its administrator (an empty store's first account), and
 * it invites each of the others before they sign up. Resolves to each address's account id.
 *
 * @example
 * ```ts
 * const id = await organisationMembers(central, ['ada@example.com', 'bob@example.com']);
 * ```
 */
export async function organisationMembers(
  central: Database,
  emails: readonly string[],
): Promise<Record<string, string>> {
  // Sessions are no concern here: the central store stands in for the app database too.
  const accounts = new Accounts(central, central, new TestClock());
  const members = new Memberships(central);
  const ids: Record<string, string> = {};
  for (const email of emails) {
    const founder = Object.values(ids)[0];
    if (founder !== undefined) await members.invite(founder, email);
    ids[email] = (await accounts.create(email, 'confirmed')).id;
  }
  return ids;
}

/**
 * Invites `email` into the organisation of `broker` on behalf of its first administrator (the
 * configured owner's account, made on first use, when nothing came before it), so that the
 * address joins as a member when it signs up.
 */
export async function inviteToOrganisation(broker: Broker, email: string): Promise<void> {
  await broker.auth.owner();
  const { rows } = await broker.central.query<{ account_id: string }>(
    "SELECT account_id FROM platform.memberships WHERE role = 'administrator' ORDER BY joined_at LIMIT 1",
  );
  const administrator = rows[0]?.account_id;
  if (administrator === undefined) throw new Error('the organisation has no administrator yet');
  await new Memberships(broker.central).invite(administrator, email);
}
