import { PlatformError } from '@platform/errors';
import type { Database, Transaction } from '../db/database.ts';
import { normalizeEmail } from '../kernel/email.ts';

/** A member's role in the organisation. */
export type OrgRole = 'member' | 'administrator';

/** One member of the organisation. */
export interface Member {
  readonly accountId: string;
  readonly email: string;
  readonly role: OrgRole;
}

// Serialises every role change and departure, so two administrators stepping down at once
// cannot leave the organisation without one.
const ROLES_LOCK = 'platform.memberships roles';

/**
 * The organisation's members and their roles (docs/organisations.md), in the store that holds
 * the accounts. Only administrators change roles (`ROLE_CHANGE_FORBIDDEN`, 403); the only
 * administrator cannot step down or leave until another member is administrator
 * (`LAST_ADMINISTRATOR`, 409). A refused change writes nothing.
 *
 * @example
 * ```ts
 * const members = new Memberships(central);
 * await members.setRole(admin.id, 'pat@example.com', 'administrator');
 * ```
 */
export class Memberships {
  readonly #db: Database;

  constructor(central: Database) {
    this.#db = central;
  }

  /** Every member, administrators first, then by address. */
  async list(): Promise<Member[]> {
    const { rows } = await this.#db.query<{ account_id: string; email: string; role: OrgRole }>(
      `SELECT m.account_id, a.email, m.role FROM platform.memberships m
       JOIN platform.accounts a ON a.id = m.account_id
       ORDER BY m.role = 'administrator' DESC, a.email`,
    );
    return rows.map((row) => ({ accountId: row.account_id, email: row.email, role: row.role }));
  }

  /** The member's role; `undefined` when the account is not a member. */
  async roleOf(accountId: string): Promise<OrgRole | undefined> {
    const { rows } = await this.#db.query<{ role: OrgRole }>(
      'SELECT role FROM platform.memberships WHERE account_id = $1',
      [accountId],
    );
    return rows[0]?.role;
  }

  /** `actorId` (an administrator) gives the member with address `email` the role `role`. */
  async setRole(actorId: string, email: string, role: OrgRole): Promise<Member> {
    return this.#db.transaction(async (tx) => {
      await tx.lock(ROLES_LOCK);
      await requireAdministrator(tx, actorId);
      const target = await memberByEmail(tx, email);
      if (target.role === 'administrator' && role === 'member') await requireAnother(tx, target);
      await tx.query('UPDATE platform.memberships SET role = $2 WHERE account_id = $1', [
        target.accountId,
        role,
      ]);
      return { ...target, role };
    });
  }

  /**
   * The member leaves the organisation (or is removed by an administrator, `actorId`): the
   * membership ends; the account itself is the account deletion's business.
   */
  async remove(actorId: string, email: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.lock(ROLES_LOCK);
      const target = await memberByEmail(tx, email);
      if (target.accountId !== actorId) await requireAdministrator(tx, actorId);
      if (target.role === 'administrator') await requireAnother(tx, target);
      await tx.query('DELETE FROM platform.memberships WHERE account_id = $1', [target.accountId]);
    });
  }
}

async function requireAdministrator(tx: Transaction, accountId: string): Promise<void> {
  const { rows } = await tx.query<{ role: OrgRole }>(
    'SELECT role FROM platform.memberships WHERE account_id = $1',
    [accountId],
  );
  if (rows[0]?.role !== 'administrator') {
    throw new PlatformError({
      code: 'ROLE_CHANGE_FORBIDDEN',
      message: "Only the organisation's administrators change roles and remove members.",
    });
  }
}

async function memberByEmail(tx: Transaction, email: string): Promise<Member> {
  const { rows } = await tx.query<{ account_id: string; email: string; role: OrgRole }>(
    `SELECT m.account_id, a.email, m.role FROM platform.memberships m
     JOIN platform.accounts a ON a.id = m.account_id WHERE a.email = $1`,
    [normalizeEmail(email)],
  );
  const row = rows[0];
  if (row === undefined) {
    throw new PlatformError({
      code: 'MEMBER_NOT_FOUND',
      message: `${email} is not a member of the organisation.`,
      details: { email },
    });
  }
  return { accountId: row.account_id, email: row.email, role: row.role };
}

async function requireAnother(tx: Transaction, leaving: Member): Promise<void> {
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM platform.memberships
     WHERE role = 'administrator' AND account_id <> $1`,
    [leaving.accountId],
  );
  if ((rows[0]?.n ?? 0) === 0) {
    throw new PlatformError({
      code: 'LAST_ADMINISTRATOR',
      message: `${leaving.email} is the organisation's only administrator: make another member administrator first.`,
    });
  }
}
