import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Database, Queryable, Transaction } from '../db/database.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { normalizeEmail, parseEmail } from '../kernel/email.ts';

/** A member's role in the organisation. */
export type OrgRole = 'member' | 'administrator';

/** What an administrator's invitation did: the address is a member already, or is invited. */
export interface Invitation {
  readonly email: string;
  /** `member`: the address's account is a member already; `invited`: it joins by accepting. */
  readonly state: 'member' | 'invited';
  /** When the invitation stops working; `null` for a member. */
  readonly expiresAt: string | null;
}

// The digest an invitation keeps of an address, the same one the join trigger computes.
const DIGEST = "encode(sha256(convert_to(lower($1), 'UTF8')), 'hex')";

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
 * (`LAST_ADMINISTRATOR`, 409). Every account belongs to exactly one company: the organisation
 * or a personal company of its own (docs/organisations.md); only an administrator's invitation,
 * accepted by the person, moves it into the organisation ({@link Memberships.invite},
 * {@link Memberships.accept}). A refused change writes nothing.
 *
 * @example
 * ```ts
 * const members = new Memberships(central);
 * await members.setRole(admin.id, 'pat@example.com', 'administrator');
 * ```
 */
export class Memberships {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(central: Database, clock: Clock = systemClock) {
    this.#db = central;
    this.#clock = clock;
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
   * `actorId` (an administrator) invites the address `email` into the organisation for
   * `limits.invitationSeconds`. The address joins when its account accepts the invitation
   * ({@link accept}), or at once when it signs up while the invitation lives. Inviting again
   * renews it; an address whose account is a member already answers `member`.
   * `INVALID_INPUT` for something that is not an address.
   */
  async invite(actorId: string, email: string): Promise<Invitation> {
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
      const member = await tx.query(
        `SELECT 1 FROM platform.memberships m JOIN platform.accounts a ON a.id = m.account_id
         WHERE a.email = $1`,
        [address],
      );
      if (member.rows.length > 0) return { email: address, state: 'member', expiresAt: null };
      const now = this.#clock.now();
      const expiresAt = new Date(now.getTime() + limits.invitationSeconds * 1000);
      await tx.query(
        `INSERT INTO platform.invitations (email_digest, invited_by, invited_at, expires_at)
         VALUES (${DIGEST}, $2, $3, $4)
         ON CONFLICT (email_digest) DO UPDATE
           SET invited_by = EXCLUDED.invited_by, invited_at = EXCLUDED.invited_at,
               expires_at = EXCLUDED.expires_at`,
        [address, actorId, now, expiresAt],
      );
      return { email: address, state: 'invited', expiresAt: expiresAt.toISOString() };
    });
  }

  /** Whether a live invitation waits for the address of the account `accountId`. */
  async invited(accountId: string): Promise<boolean> {
    const { rows } = await this.#db.query(
      `SELECT 1 FROM platform.invitations i JOIN platform.accounts a
         ON i.email_digest = encode(sha256(convert_to(lower(a.email), 'UTF8')), 'hex')
       WHERE a.id = $1 AND i.expires_at > $2
         AND NOT EXISTS (SELECT 1 FROM platform.memberships m WHERE m.account_id = a.id)`,
      [accountId, this.#clock.now()],
    );
    return rows.length > 0;
  }

  /**
   * The account `accountId` accepts the live invitation waiting for its address: it leaves its
   * personal company and becomes a member, in one transaction. A member already stays as it is;
   * without a live invitation, `INVITATION_NOT_FOUND` (404).
   */
  async accept(accountId: string): Promise<Member> {
    return this.#db.transaction(async (tx) => {
      await tx.lock(ROLES_LOCK);
      const { rows } = await tx.query<{ email: string; role: OrgRole | null }>(
        `SELECT a.email, m.role FROM platform.accounts a
         LEFT JOIN platform.memberships m ON m.account_id = a.id WHERE a.id = $1`,
        [accountId],
      );
      const account = rows[0];
      if (account?.role) return { accountId, email: account.email, role: account.role };
      const used = account
        ? await tx.query(
            `DELETE FROM platform.invitations WHERE email_digest = ${DIGEST} AND expires_at > $2
             RETURNING 1`,
            [account.email, this.#clock.now()],
          )
        : { rows: [] };
      if (account === undefined || used.rows.length === 0) {
        throw new PlatformError({
          code: 'INVITATION_NOT_FOUND',
          message:
            'No live invitation to join the organisation waits for your address: ask one of its administrators to invite you (platform org invite).',
        });
      }
      await tx.query('DELETE FROM platform.personal_companies WHERE account_id = $1', [accountId]);
      await tx.query(
        `INSERT INTO platform.memberships (account_id, role, joined_at) VALUES ($1, 'member', $2)`,
        [accountId, this.#clock.now()],
      );
      return { accountId, email: account.email, role: 'member' };
    });
  }

  /**
   * Makes the account `accountId` a member (the administrator when the organisation has none),
   * leaving its personal company, in one transaction; a member stays as it is. For company
   * setup at onboarding (spec 5.2): the organisation's operator started the onboarding request
   * for this address, which invites it as surely as `platform org invite` does.
   */
  async join(accountId: string): Promise<OrgRole> {
    return this.#db.transaction(async (tx) => {
      await tx.lock(ROLES_LOCK);
      const current = await roleOf(tx, accountId);
      if (current) return current;
      const { rows } = await tx.query(
        "SELECT 1 FROM platform.memberships WHERE role = 'administrator' LIMIT 1",
      );
      const role: OrgRole = rows.length > 0 ? 'member' : 'administrator';
      await tx.query('DELETE FROM platform.personal_companies WHERE account_id = $1', [accountId]);
      await tx.query(
        'INSERT INTO platform.memberships (account_id, role, joined_at) VALUES ($1, $2, $3)',
        [accountId, role, this.#clock.now()],
      );
      return role;
    });
  }

  /**
   * The member leaves the organisation (or is removed by an administrator, `actorId`): the
   * membership ends and the account is in a personal company of its own again, so it still
   * belongs to exactly one; the account itself is the account deletion's business.
   */
  async remove(actorId: string, email: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.lock(ROLES_LOCK);
      const target = await memberByEmail(tx, email);
      if (target.accountId !== actorId) await requireAdministrator(tx, actorId);
      await keepAnAdministrator(tx, target);
      await tx.query('DELETE FROM platform.memberships WHERE account_id = $1', [target.accountId]);
      await tx.query(
        `INSERT INTO platform.personal_companies (account_id, created_at) VALUES ($1, $2)
         ON CONFLICT (account_id) DO NOTHING`,
        [target.accountId, this.#clock.now()],
      );
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
