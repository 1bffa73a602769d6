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
  'agent_credentials',
  'memberships',
];

// A person's rows in the accounts side of the organisation, by account id.
const personRows: ReadonlyArray<readonly [table: string, where: string]> = [
  ['handoffs', 'account_id = $1'],
  ['app_audience_accounts', 'account_id = $1'],
  ['app_editors', 'account_id = $1'],
  ['platform_admins', 'account_id = $1'],
  ['bindings', 'person_account_id = $1'],
  ['connect_links', 'account_id = $1'],
  ['oauth_states', 'account_id = $1'],
  // A personal connection goes with its owner, and its bindings with it (ON DELETE CASCADE).
  ['connections', 'owner_account_id = $1'],
  ['agent_credentials', 'account_id = $1'],
  ['memberships', 'account_id = $1'],
];

/**
 * Empties the organisation's records in the accounts' database (transaction `tx`): its apps'
 * registry, audiences, editors and grants, its integrations' connections, bindings and links,
 * its platform administrators and its members. Run when its only member deletes their account,
 * in the transaction that takes the apps offline. Accounts stay: the person's is deleted last,
 * and other people keep theirs. Integration call audit rows name no person and stay.
 */
export async function eraseOrganisation(tx: Queryable): Promise<void> {
  for (const table of organisationTables) {
    if (await exists(tx, table)) await tx.query(`DELETE FROM platform.${table}`);
  }
}

/**
 * The last part of a deletion (transaction `tx`): the person's own rows in the accounts'
 * database (links and grants to their address made before `before`, the deletion's request,
 * so a new account with that address keeps its own), their membership (rejoining needs a new
 * invitation), and then the sign-in identity and account record.
 */
export async function erasePerson(
  tx: Queryable,
  person: DeletedPerson,
  before: Date,
): Promise<void> {
  for (const [table, where] of personRows) {
    if (await exists(tx, table)) {
      await tx.query(`DELETE FROM platform.${table} WHERE ${where}`, [person.accountId]);
    }
  }
  for (const [table, stamp] of [
    ['email_links', 'created_at'],
    ['app_grants', 'granted_at'],
  ] as const) {
    await tx.query(`DELETE FROM platform.${table} WHERE lower(email) = $1 AND ${stamp} <= $2`, [
      person.email,
      before,
    ]);
  }
  await tx.query('DELETE FROM platform.accounts WHERE id = $1', [person.accountId]);
}
