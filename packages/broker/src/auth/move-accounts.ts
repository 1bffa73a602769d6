import type { Database } from '../db/database.ts';

/** What {@link moveAccountsToCentral} did. */
export interface AccountsMove {
  /** Accounts now in the central store that were in the app's database. */
  readonly moved: number;
  /**
   * Addresses the central store already had under another account id (another app of the
   * organisation registered them first): the central account is kept, and this app's rows
   * owned by the old id are not re-owned.
   */
  readonly clashes: readonly string[];
}

const accountColumns = [
  'id',
  'email',
  'display_name',
  'state',
  'confirm_deadline',
  'password_verifier',
  'created_at',
  'sessions_valid_after',
  'kept_session',
] as const;

const linkColumns = [
  'id',
  'app_id',
  'email',
  'purpose',
  'token_hash',
  'claim_hash',
  'return_to',
  'created_at',
  'expires_at',
  'approved_at',
  'approved_account',
  'claimed_at',
] as const;

async function copyRows(
  from: Record<string, unknown>[],
  central: Database,
  table: string,
  columns: readonly string[],
): Promise<void> {
  const list = columns.join(', ');
  const params = columns.map((_, i) => `$${i + 1}`).join(', ');
  for (const row of from) {
    await central.query(
      `INSERT INTO platform.${table} (${list}) VALUES (${params}) ON CONFLICT DO NOTHING`,
      columns.map((column) => row[column] ?? null),
    );
  }
}

/**
 * Moves the sign-in state a broker kept in its app's own database (before organisations) into
 * the central store: accounts with their verifiers and the email links, which are then deleted
 * from the app's database so that it holds no verifier. Sessions stay with their app. Does
 * nothing when the app's database holds no account. An account whose address the central
 * store already holds under another id is reported in `clashes`, not merged.
 */
export async function moveAccountsToCentral(
  app: Database,
  central: Database,
): Promise<AccountsMove> {
  const accounts = (await app.query('SELECT * FROM platform.accounts')).rows;
  if (accounts.length === 0) return { moved: 0, clashes: [] };
  const links = (await app.query('SELECT * FROM platform.email_links')).rows;
  await copyRows(accounts, central, 'accounts', accountColumns);
  await copyRows(links, central, 'email_links', linkColumns);
  const clashes: string[] = [];
  for (const row of accounts) {
    const { rows } = await central.query<{ id: string }>(
      'SELECT id FROM platform.accounts WHERE email = $1',
      [row.email],
    );
    if (rows[0]?.id !== row.id) clashes.push(String(row.email));
  }
  // Only once every row is safely in the central store.
  await app.transaction(async (tx) => {
    await tx.query('DELETE FROM platform.email_links');
    await tx.query('DELETE FROM platform.memberships');
    await tx.query('DELETE FROM platform.personal_companies');
    await tx.query('DELETE FROM platform.invitations');
    await tx.query('DELETE FROM platform.accounts');
  });
  return { moved: accounts.length - clashes.length, clashes };
}

/**
 * Moves the private-app grants a broker kept in its app's own database into the central store,
 * where the organisation keeps them; answers how many it moved. A grant the central store has
 * already is kept once.
 */
export async function moveGrantsToCentral(app: Database, central: Database): Promise<number> {
  const grants = (await app.query('SELECT * FROM platform.app_grants')).rows;
  if (grants.length === 0) return 0;
  await copyRows(grants, central, 'app_grants', ['app_id', 'email', 'granted_at']);
  await app.query('DELETE FROM platform.app_grants');
  return grants.length;
}
