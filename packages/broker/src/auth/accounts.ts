import { randomUUID } from 'node:crypto';
import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';

/**
 * Spec 3.3 locally: `unconfirmed` (password registration or onboarding) until the email is
 * confirmed with an explicit action; `paused` once the 24-hour deadline passed without it (its
 * sessions are revoked and every app it owns is paused); `confirmed` after confirmation, which
 * also resumes a paused account.
 */
export type AccountState = 'unconfirmed' | 'confirmed' | 'paused';

/** A sign-in identity. The verifier never leaves {@link Accounts}. */
export interface Account {
  /** A UUID: `auth.uid()` in RLS policies. */
  readonly id: string;
  readonly email: string;
  readonly displayName: string | null;
  readonly state: AccountState;
  /** When an unconfirmed account pauses; `null` once confirmed. */
  readonly confirmDeadline: Date | null;
  readonly hasPassword: boolean;
}

interface AccountRow {
  id: string;
  email: string;
  display_name: string | null;
  state: AccountState;
  confirm_deadline: Date | string | null;
  password_verifier: string | null;
  sessions_valid_after: Date | string | null;
  kept_session: string | null;
}

/** A session as the session floor judges it. */
export interface SessionStamp {
  readonly id: string;
  readonly accountId: string;
  readonly createdAt: Date;
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  email: row.email,
  displayName: row.display_name,
  state: row.state,
  confirmDeadline: row.confirm_deadline === null ? null : new Date(row.confirm_deadline),
  hasPassword: row.password_verifier !== null,
});

/**
 * The accounts table (`platform.accounts`) and the confirmation states of spec 3.3. The
 * deadline is applied whenever an account is read, against the injected clock, so tests move
 * time instead of waiting and no timer has to run.
 *
 * Accounts and their verifiers live in `central`, the organisation's central store (or, for a
 * broker started alone, its own database); this app's sessions live in `app`. An account's
 * session floor (`sessions_valid_after`, `kept_session`) is how a change that ends its
 * sessions reaches every app: each app's sessions made before it are refused ({@link admits}).
 */
export class Accounts {
  readonly #db: Database;
  readonly #app: Database;
  readonly #clock: Clock;
  readonly #changed = new Set<(id: string) => void>();

  constructor(central: Database, app: Database, clock: Clock) {
    this.#db = central;
    this.#app = app;
    this.#clock = clock;
  }

  /** Calls `listener` with the account id after every state change this process makes (caches). */
  onChange(listener: (id: string) => void): void {
    this.#changed.add(listener);
  }

  #notify(id: string): void {
    for (const listener of this.#changed) listener(id);
  }

  /**
   * The account of a session that is neither revoked nor expired (deadline applied), in one
   * query: what every request with an access JWT revalidates.
   */
  async bySession(sessionId: string, appId: string): Promise<Account | undefined> {
    const { rows } = await this.#app.query<{ account_id: string; created_at: Date | string }>(
      `SELECT account_id, created_at FROM platform.sessions
       WHERE id = $1 AND app_id = $2 AND revoked_at IS NULL AND expires_at > $3`,
      [sessionId, appId, this.#clock.now()],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return this.admits({
      id: sessionId,
      accountId: row.account_id,
      createdAt: new Date(row.created_at),
    });
  }

  /**
   * The account of a live session of this app (deadline applied), unless the account's session
   * floor ended the session: a session made before it, other than the one it keeps.
   */
  async admits(session: SessionStamp): Promise<Account | undefined> {
    const { rows } = await this.#db.query<AccountRow>(
      'SELECT * FROM platform.accounts WHERE id = $1',
      [session.accountId],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const floor = row.sessions_valid_after === null ? null : new Date(row.sessions_valid_after);
    if (floor !== null && session.createdAt < floor && row.kept_session !== session.id) {
      return undefined;
    }
    return this.#applyDeadline(toAccount(row));
  }

  /**
   * Ends every session of the account in every app except `keep` (a password change): this
   * app's at once, the other apps' through the session floor.
   */
  async endSessionsElsewhere(id: string, keep: string | undefined): Promise<void> {
    await this.#db.query(
      'UPDATE platform.accounts SET sessions_valid_after = $2, kept_session = $3 WHERE id = $1',
      [id, this.#clock.now(), keep ?? null],
    );
  }

  /** The account with this address (deadline applied), if any. */
  async byEmail(email: string): Promise<Account | undefined> {
    const { rows } = await this.#db.query<AccountRow>(
      'SELECT * FROM platform.accounts WHERE email = $1',
      [email],
    );
    return rows[0] === undefined ? undefined : this.#applyDeadline(toAccount(rows[0]));
  }

  /** The account with this id (deadline applied), if any. */
  async byId(id: string): Promise<Account | undefined> {
    const { rows } = await this.#db.query<AccountRow>(
      'SELECT * FROM platform.accounts WHERE id = $1',
      [id],
    );
    return rows[0] === undefined ? undefined : this.#applyDeadline(toAccount(rows[0]));
  }

  /** The stored password verifier of an account, or `null`. */
  async verifierOf(id: string): Promise<string | null> {
    const { rows } = await this.#db.query<{ password_verifier: string | null }>(
      'SELECT password_verifier FROM platform.accounts WHERE id = $1',
      [id],
    );
    return rows[0]?.password_verifier ?? null;
  }

  /**
   * Creates an account. `unconfirmed` starts the 24-hour confirmation deadline; a concurrent
   * creation of the same address returns the existing account.
   */
  async create(
    email: string,
    state: 'unconfirmed' | 'confirmed',
    verifier: string | null = null,
  ): Promise<Account> {
    const now = this.#clock.now();
    const deadline =
      state === 'unconfirmed'
        ? new Date(now.getTime() + limits.confirmationDeadlineSeconds * 1000)
        : null;
    await this.#db.query(
      `INSERT INTO platform.accounts (id, email, state, confirm_deadline, password_verifier, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING`,
      [randomUUID(), email, state, deadline, verifier, now],
    );
    const account = await this.byEmail(email);
    if (account === undefined) throw new Error(`Account ${email} vanished after creation`);
    this.#notify(account.id);
    return account;
  }

  /**
   * Confirms the address (an explicit confirmation action, spec 3.3): `unconfirmed` and
   * `paused` both become `confirmed`, which resumes the account's paused apps.
   *
   * Whoever registered the address never proved it was theirs, so confirmation adopts nothing
   * of theirs unless the registrant is the one confirming: `registrantSession` is the live
   * provisional session of the browser that confirms (its own confirmation), which becomes a
   * normal session (30 days from its sign-in) and keeps the password. Every other session of
   * the account is revoked, and without `registrantSession` (the address's owner confirmed
   * through another browser or an email-link sign-in) the unverified password is dropped too.
   */
  async confirm(id: string, registrantSession?: string): Promise<void> {
    const now = this.#clock.now();
    const dropPassword = registrantSession === undefined ? ', password_verifier = NULL' : '';
    // The account first: from here on no app accepts a session made before, but the kept one.
    await this.#db.query(
      `UPDATE platform.accounts SET state = 'confirmed', confirm_deadline = NULL${dropPassword},
         sessions_valid_after = $2, kept_session = $3
       WHERE id = $1`,
      [id, now, registrantSession ?? null],
    );
    await this.#app.transaction(async (tx) => {
      if (registrantSession !== undefined) {
        await tx.query(
          `UPDATE platform.sessions
             SET provisional = false, expires_at = created_at + make_interval(secs => $3)
           WHERE id = $2 AND account_id = $1 AND provisional AND revoked_at IS NULL`,
          [id, registrantSession, limits.sessionSeconds],
        );
      }
      await tx.query(
        `UPDATE platform.sessions SET revoked_at = $2, revoked_reason = 'address confirmed elsewhere'
         WHERE account_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $3`,
        [id, now, registrantSession ?? null],
      );
    });
    this.#notify(id);
  }

  /** Sets or replaces the password verifier; email-link access stays (spec 2.1). */
  async setVerifier(id: string, verifier: string): Promise<void> {
    await this.#db.query('UPDATE platform.accounts SET password_verifier = $2 WHERE id = $1', [
      id,
      verifier,
    ]);
  }

  // An unconfirmed account past its deadline pauses, and its (provisional) sessions end.
  async #applyDeadline(account: Account): Promise<Account> {
    if (
      account.state !== 'unconfirmed' ||
      account.confirmDeadline === null ||
      this.#clock.now() < account.confirmDeadline
    ) {
      return account;
    }
    const now = this.#clock.now();
    await this.#db.query(
      `UPDATE platform.accounts SET state = 'paused', sessions_valid_after = $2, kept_session = NULL
       WHERE id = $1 AND state = 'unconfirmed'`,
      [account.id, now],
    );
    await this.#app.transaction(async (tx) => {
      await tx.query(
        `UPDATE platform.sessions SET revoked_at = $2, revoked_reason = 'confirmation deadline'
         WHERE account_id = $1 AND revoked_at IS NULL`,
        [account.id, now],
      );
    });
    this.#notify(account.id);
    return { ...account, state: 'paused' };
  }
}
