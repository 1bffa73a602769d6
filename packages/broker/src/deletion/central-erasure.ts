import type { Queryable } from '../db/database.ts';
import { type DeletedPerson, exists } from './app-erasure.ts';

// The organisation's records of its apps and integrations, in the order a whole-organisation
// deletion empties them (bindings before their connections).
const organisationTables = [
  'email_links',
  'app_grants',
  'handoffs',
  'app_audience_accounts',
  'app_audiences',
  'app_editors',
  'apps',
  'platform_admins',
  'bindings',
  'connect_links',
  'oauth_states',
  'integration_event_deliveries',
  'connections',
  'memberships',
];

// A person's rows in the accounts side of the organisation, by account id or address.
const personRows: ReadonlyArray<readonly [table: string, where: string, by: 'id' | 'email']> = [
  ['email_links', 'lower(email) = $1', 'email'],
  ['app_grants', 'lower(email) = $1', 'email'],
  ['handoffs', 'account_id = $1', 'id'],
  ['app_audience_accounts', 'account_id = $1', 'id'],
  ['app_editors', 'account_id = $1', 'id'],
  ['platform_admins', 'account_id = $1', 'id'],
  ['bindings', 'person_account_id = $1', 'id'],
  ['connect_links', 'account_id = $1', 'id'],
  ['oauth_states', 'account_id = $1', 'id'],
  // A personal connection goes with its owner, and its bindings with it (ON DELETE CASCADE).
  ['connections', 'owner_account_id = $1', 'id'],
  ['memberships', 'account_id = $1', 'id'],
];

/**
 * The accounts side of a deletion, in the transaction `tx` of the central store (or of a lone
 * broker's database): with `wholeOrganisation` the organisation's apps and integrations go
 * with the person (they were its only member); otherwise only the person's own rows, and the
 * membership (rejoining needs a new invitation). Last, the sign-in identity and account record.
 * Integration call audit rows name no person and stay.
 */
export async function eraseFromCentral(
  tx: Queryable,
  person: DeletedPerson,
  wholeOrganisation: boolean,
): Promise<void> {
  if (wholeOrganisation) {
    for (const table of organisationTables) {
      if (await exists(tx, table)) await tx.query(`DELETE FROM platform.${table}`);
    }
  } else {
    for (const [table, where, by] of personRows) {
      if (await exists(tx, table)) {
        const value = by === 'id' ? person.accountId : person.email;
        await tx.query(`DELETE FROM platform.${table} WHERE ${where}`, [value]);
      }
    }
  }
  await tx.query('DELETE FROM platform.accounts WHERE id = $1', [person.accountId]);
}
