import type { Queryable } from '../db/database.ts';
import type { ErasedPerson, FeatureErasure } from '../feature/broker-feature.ts';

/**
 * Empties the organisation's records in the accounts' database (transaction `tx`), each feature
 * its own: its apps' registry, audiences, editors and grants, its integrations' connections,
 * bindings and links, its platform administrators and its members. Run when its only member
 * deletes their account, in the transaction that takes the apps offline. Accounts stay: the
 * person's is deleted last, and other people keep theirs.
 */
export async function eraseOrganisation(
  tx: Queryable,
  erasures: readonly FeatureErasure[],
): Promise<void> {
  for (const erasure of erasures) await erasure.organisation?.(tx);
}

/**
 * The last part of a deletion (transaction `tx`): each feature's rows of the person in the
 * accounts' database, and then the sign-in identity and account record.
 */
export async function erasePerson(
  tx: Queryable,
  person: ErasedPerson,
  erasures: readonly FeatureErasure[],
): Promise<void> {
  for (const erasure of erasures) await erasure.person?.(tx, person);
  await tx.query('DELETE FROM platform.accounts WHERE id = $1', [person.accountId]);
}
