import { PlatformError } from '@platform/errors';
import type { Database, Queryable, Transaction } from '../db/database.ts';
import { normalizeEmail, parseEmail } from '../kernel/email.ts';
import { readmit } from './departures.ts';

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
 * (`LAST_ADMINISTRATOR`, 409). Administrators invite an address that left with its deleted
 * account back ({@link Memberships.invite}). A refused change writes nothing.
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
  roleOf(accountId: string): Promise<OrgRole | undefined> {
    return roleOf(this.#db, accountId);
  }

  /** `actorId` (an administrator) gives the member with address `email` the role `role`. */
  async setRole(actorId: string, email: string, role: OrgRole): Promise<Member> {
    return this.#db.transaction(async (tx) => {
      await tx.lock(ROLES_LOCK);
      await requireAdministrator(tx, actorId);
      const target = await memberByEmail(tx, email);
      if (role === 'member') await keepAnAdministrator(tx, target);
      await tx.query('UPDATE platform.memberships SET role = $2 WHERE account_id = $1', [
        target.accountId,
        role,
      ]);
      return { ...target, role };
    });
  }

  /**
   * `actorId` (an administrator) invites the address `email` into the organisation: an address
   * that left with its deleted account may join again (docs/organisations.md). An account that
   * signed up with it meanwhile becomes a member now (`joined`); an address without an account
   * joins when it signs up. `INVALID_INPUT` for something that is not an address.
   */
  async invite(actorId: string, email: string): Promise<{ email: string; joined: boolean }> {
    const address = parseEmail(email);
    if (address === undefined) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `${email} is not an email address.`,
        details: { field: 'email' },
      });
    }
    return this.#db.transaction(async (tx) => {
      await tx.lock(ROLES_LOCK);
      await requireAdministrator(tx, actorId, 'invite people');
      return { email: address, joined: await readmit(tx, address) };
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
      await keepAnAdministrator(tx, target);
      await tx.query('DELETE FROM platform.memberships WHERE account_id = $1', [target.accountId]);
    });
  }
}

/**
 * The role of the account `accountId` in the organisation; `undefined` when it is not a member.
 * Pass a transaction to read it under the lock of a change.
 *
 * @example
 * ```ts
 * if ((await roleOf(central, accountId)) === 'administrator') showAdminTools();
 * ```
 */
export async function roleOf(db: Queryable, accountId: string): Promise<OrgRole | undefined> {
  const { rows } = await db.query<{ role: OrgRole }>(
    'SELECT role FROM platform.memberships WHERE account_id = $1',
    [accountId],
  );
  return rows[0]?.role;
}

async function requireAdministrator(
  tx: Transaction,
  accountId: string,
  what = 'change roles and remove members',
): Promise<void> {
  if ((await roleOf(tx, accountId)) !== 'administrator') {
    throw new PlatformError({
      code: 'ROLE_CHANGE_FORBIDDEN',
      message: `Only the organisation's administrators ${what}.`,
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

/**
 * The last-administrator rule: a member who leaves the administrator role (stepping down,
 * leaving, deleting the account) needs another administrator to stay, otherwise
 * `LAST_ADMINISTRATOR` (409). Does nothing for a member who is not an administrator. Run it in
 * the transaction that makes the change, after taking the lock that serialises role changes
 * (or the memberships' rows), so two administrators leaving at once cannot both pass.
 *
 * @example
 * ```ts
 * await central.transaction(async (tx) => {
 *   await keepAnAdministrator(tx, { accountId, email, role });
 *   await tx.query('DELETE FROM platform.memberships WHERE account_id = $1', [accountId]);
 * });
 * ```
 */
export async function keepAnAdministrator(tx: Transaction, leaving: Member): Promise<void> {
  if (leaving.role !== 'administrator') return;
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM platform.memberships
     WHERE role = 'administrator' AND account_id <> $1`,
    [leaving.accountId],
  );
  if ((rows[0]?.n ?? 0) === 0) {
    throw new PlatformError({
      code: 'LAST_ADMINISTRATOR',
      message: `${leaving.email} is the organisation's only administrator: make another member administrator first (platform org role <email> administrator).`,
    });
  }
}
