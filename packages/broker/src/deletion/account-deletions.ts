import { randomUUID } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Account } from '../auth/accounts.ts';
import type { Database } from '../db/database.ts';
import type { ErasedPerson, FeatureErasure } from '../feature/broker-feature.ts';
import { eraseRows, tableExists } from '../feature/erase-rows.ts';
import { type Clock, inMinutes } from '../kernel/clock.ts';
import { normalizeEmail } from '../kernel/email.ts';
import { newId } from '../kernel/ids.ts';
import { type Departure, depart } from '../org/departures.ts';
import { keepAnAdministrator, type OrgRole } from '../org/memberships.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { removePersonFromApp, wipeApp } from './app-erasure.ts';
import { eraseOrganisation, erasePerson } from './central-erasure.ts';

// How long one broker holds a part of a deletion before another may take it over: the central
// part, and each app's part (renewed while the app is wiped, which may take longer).
const LEASE_MS = 30_000;

/** What a deletion needs from the broker of one app. */
export interface AccountDeletionsOptions {
  /** The database that holds the accounts: the central store, or the app's own when alone. */
  readonly central: Database;
  /** This app's database. */
  readonly db: Database;
  readonly appId: string;
  /** The app's `.platform` folder (stored files, Function bundles, secrets). */
  readonly stateDir: string;
  /** The ids of every app of the organisation, this one included. */
  readonly appIds: () => readonly string[];
  readonly outbox: Outbox;
  readonly clock: Clock;
  readonly print: (line: string) => void;
  /** How each feature forgets a person, in registry order. */
  readonly erasures: readonly FeatureErasure[];
}

/** A deletion asked for from the account page. */
export interface DeletionRequest {
  readonly account: Account;
  /** When the asking browser's session was created (its sign-in). */
  readonly signedInAt: Date;
  /** The address the person typed as confirmation. */
  readonly typedEmail: string;
  /** Whether the person is the owner this app's sign-in knows (the developer's account). */
  readonly ownsThisApp: boolean;
}

interface DeletionRow {
  id: string;
  account_id: string;
  notify_email: string | null;
  notify_app_id: string;
  whole_organisation: boolean;
  requested_at: Date | string;
  central_done_at: Date | string | null;
  app_done: boolean;
  pending_apps: string;
}

/**
 * Account deletion (spec 3.5), immediate and permanent. {@link request} takes effect at once in
 * one transaction of the accounts' database: the account's sessions end in every app (the
 * session floor every request checks), its password and sign-in address stop working (the
 * address is released), pending email links and handoffs go, and when the person was the
 * organisation's only member its apps go offline (their owner is gone). The rest is a durable
 * operation that every broker of the organisation runs for its own app ({@link resume}, at
 * start and every second): wipe the app or remove the person from it, then, once every app is
 * done, the accounts side and the account record, then the confirmation email to the old
 * address from the app where it was asked. Each part is recorded when done, so a broker stopped
 * half-way resumes where it was. Several brokers of one app (`platform serve` nodes) take turns:
 * the app's part and the email run under a lease per deletion and app, the central part under a
 * lease per deletion, so each is done by one broker at a time.
 */
export class AccountDeletions {
  readonly #o: AccountDeletionsOptions;
  #running: Promise<void> | undefined;
  #stopped = false;
  readonly #onDeleted: (() => void)[] = [];

  constructor(options: AccountDeletionsOptions) {
    this.#o = options;
  }

  /** Whether a sign-in at `signedInAt` is recent enough to delete the account. */
  isRecent(signedInAt: Date): boolean {
    const age = this.#o.clock.now().getTime() - signedInAt.getTime();
    return age <= limits.recentSignInSeconds * 1000;
  }

  /**
   * Deletes `request.account`: `RECENT_SIGN_IN_REQUIRED` for a sign-in older than
   * `limits.recentSignInSeconds`, `INVALID_INPUT` when the typed address is not the
   * account's, `ACCOUNT_DELETION_IN_PROGRESS` for a second request, `LAST_ADMINISTRATOR` for
   * the only administrator of an organisation with other members, `ACCOUNT_OWNS_APPS` for the
   * configured owner of a broker started alone that other members use. Nothing changes when it
   * refuses. A member of an organisation with others leaves it: the apps they owned pass to the
   * organisation's longest-standing other administrator, and their address joins again only by
   * an administrator's invitation (`depart`).
   */
  async request(request: DeletionRequest): Promise<{ id: string; wholeOrganisation: boolean }> {
    const { account } = request;
    const now = this.#o.clock.now();
    if (!this.isRecent(request.signedInAt)) {
      throw new PlatformError({
        code: 'RECENT_SIGN_IN_REQUIRED',
        message: `Deleting the account needs a sign-in within the last ${inMinutes(limits.recentSignInSeconds)}: sign out, sign in again and come back.`,
      });
    }
    if (normalizeEmail(request.typedEmail) !== account.email) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `Type the account's address, ${account.email}, exactly to confirm.`,
        details: { field: 'email' },
      });
    }
    const id = newId('accountDeletion');
    let departure: Departure | undefined;
    const wholeOrganisation = await this.#o.central.transaction(async (tx) => {
      // Serialises with role changes and other deletions: the rules below read the members.
      const { rows: members } = await tx.query<{ account_id: string; role: OrgRole }>(
        'SELECT account_id, role FROM platform.memberships ORDER BY account_id FOR UPDATE',
      );
      const { rowCount: running } = await tx.query(
        'SELECT 1 FROM platform.account_deletions WHERE account_id = $1',
        [account.id],
      );
      if (running > 0) {
        throw new PlatformError({
          code: 'ACCOUNT_DELETION_IN_PROGRESS',
          message: 'This account is already being deleted.',
        });
      }
      const others = members.filter((m) => m.account_id !== account.id);
      const sole = others.length === 0;
      if (!sole) {
        const me = members.find((m) => m.account_id === account.id);
        if (me !== undefined) {
          await keepAnAdministrator(tx, {
            accountId: account.id,
            email: account.email,
            role: me.role,
          });
        }
        if (request.ownsThisApp && !(await tableExists(tx, 'apps'))) {
          // A broker started alone: its owner is its configuration, which no deletion changes.
          throw new PlatformError({
            code: 'ACCOUNT_OWNS_APPS',
            message: `You own ${this.#o.appId}, which other members of the organisation use, as this broker's configured owner (auth.ownerEmail): configure another owner first.`,
            details: { apps: [this.#o.appId] },
          });
        }
        // The organisation's apps stay: those the person owned pass to an administrator.
        departure = await depart(tx, { accountId: account.id, email: account.email });
      }
      await tx.query(
        `UPDATE platform.accounts
         SET email = $2, password_verifier = NULL, sessions_valid_after = $3, kept_session = NULL
         WHERE id = $1`,
        // The floor admits sessions created after it: one millisecond on, every session that
        // exists now (created at `now` or before) has ended.
        [account.id, `${id}@deleted.invalid`, new Date(now.getTime() + 1)],
      );
      await tx.query('DELETE FROM platform.email_links WHERE lower(email) = $1', [account.email]);
      await eraseRows(tx, 'handoffs', 'account_id = $1', [account.id]);
      // Its agents stop at once: their credentials are refused from the next request.
      await tx.query(
        'UPDATE platform.agent_credentials SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL',
        [account.id, now],
      );
      // The only member's organisation goes with them: its apps are offline from here on.
      if (sole) await eraseOrganisation(tx, this.#o.erasures);
      await tx.query(
        `INSERT INTO platform.account_deletions
           (id, account_id, notify_email, notify_app_id, whole_organisation, requested_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, account.id, account.email, this.#o.appId, sole, now],
      );
      for (const appId of new Set([this.#o.appId, ...this.#o.appIds()])) {
        await tx.query(
          'INSERT INTO platform.account_deletion_apps (deletion_id, app_id) VALUES ($1, $2)',
          [id, appId],
        );
      }
      return sole;
    });
    for (const listener of this.#onDeleted) listener();
    if (departure?.heir !== undefined) {
      this.#o.print(
        `[auth] ${departure.apps.join(', ')} now owned by the organisation's administrator ${departure.heir}.`,
      );
    }
    this.#o.print(
      `[auth] Account ${account.id} is being deleted${wholeOrganisation ? ' with its organisation and apps' : ''}.`,
    );
    void this.resume();
    return { id, wholeOrganisation };
  }

  /**
   * Runs what is left of every unfinished deletion for this app (one run at a time; a call
   * while one runs waits for it). Failures are printed and tried again on the next call.
   */
  resume(): Promise<void> {
    if (this.#running === undefined) {
      this.#running = this.#resumeAll()
        .catch((error: unknown) => this.#o.print(`WARN  account deletion: ${String(error)}`))
        .finally(() => {
          this.#running = undefined;
        });
    }
    return this.#running;
  }

  /** Calls `listener` each time a deletion has taken effect (sessions ended, apps offline). */
  whenDeleted(listener: () => void): void {
    this.#onDeleted.push(listener);
  }

  /** Resumes now and every `everyMs`; the answer stops it and waits for a run in progress. */
  start(everyMs = 1000): () => Promise<void> {
    void this.resume();
    const timer = setInterval(() => void this.resume(), everyMs);
    timer.unref();
    return async () => {
      this.#stopped = true;
      clearInterval(timer);
      await this.#running;
    };
  }

  /**
   * At start, before the app is served: this app's part of every unfinished deletion, so that a
   * broker stopped half-way finishes wiping before it begins the app anew. Resolves to `true`
   * when the app was wiped (its migrations are then to be applied again).
   */
  async finishOwnPart(): Promise<boolean> {
    let wiped = false;
    for (const row of await this.#unfinished()) {
      if (row.app_done) continue;
      // Another node of the app may be wiping it: wait for its part rather than serve meanwhile.
      const until = Date.now() + LEASE_MS + 5_000;
      for (;;) {
        const done = await this.#underLease(row.id, async (fresh) => {
          if (!fresh.app_done) await this.#appPart(fresh, personOf(fresh));
        });
        if (done || (await this.#appDone(row.id)) || Date.now() > until) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      wiped ||= row.whole_organisation;
    }
    return wiped;
  }

  async #resumeAll(): Promise<void> {
    for (const row of await this.#unfinished()) {
      if (this.#stopped) return;
      await this.#underLease(row.id, (fresh) => this.#resumeOne(fresh));
    }
  }

  /**
   * Runs `work` on deletion `deletionId` as read after taking this app's lease on it, so that
   * of the nodes serving the app one at a time wipes it (or removes the person) and sends the
   * confirmation email; `false`, running nothing, when another node holds the lease or the
   * deletion finished meanwhile. The lease is renewed while `work` runs and released after it.
   */
  async #underLease(
    deletionId: string,
    work: (row: DeletionRow) => Promise<void>,
  ): Promise<boolean> {
    const { central, appId, clock } = this.#o;
    const holder = randomUUID();
    const take = async () => {
      const now = clock.now();
      const { rowCount } = await central.query(
        `UPDATE platform.account_deletion_apps SET lease_holder = $3, lease_until = $4
         WHERE deletion_id = $1 AND app_id = $2
           AND (lease_until IS NULL OR lease_until < $5 OR lease_holder = $3)`,
        [deletionId, appId, holder, new Date(now.getTime() + LEASE_MS), now],
      );
      return rowCount > 0;
    };
    if (!(await take())) return false;
    const renew = setInterval(() => void take().catch(() => undefined), LEASE_MS / 3);
    renew.unref();
    try {
      // Read after the lease is ours: what an earlier holder did is seen.
      const row = (await this.#unfinished(deletionId))[0];
      if (row !== undefined) await work(row);
      return true;
    } finally {
      clearInterval(renew);
      await central.query(
        `UPDATE platform.account_deletion_apps SET lease_holder = NULL, lease_until = NULL
         WHERE deletion_id = $1 AND app_id = $2 AND lease_holder = $3`,
        [deletionId, appId, holder],
      );
    }
  }

  async #appDone(deletionId: string): Promise<boolean> {
    const { rowCount } = await this.#o.central.query(
      `SELECT 1 FROM platform.account_deletion_apps
       WHERE deletion_id = $1 AND app_id = $2 AND done_at IS NOT NULL`,
      [deletionId, this.#o.appId],
    );
    return rowCount > 0;
  }

  // The unfinished deletions this app has a part in (or the one given), with whether its part
  // is done.
  async #unfinished(deletionId?: string): Promise<DeletionRow[]> {
    const { central, appId } = this.#o;
    const { rows } = await central.query<DeletionRow>(
      `SELECT d.id, d.account_id, d.notify_email, d.notify_app_id, d.whole_organisation,
              d.requested_at, d.central_done_at,
              bool_or(a.app_id = $1 AND a.done_at IS NOT NULL) AS app_done,
              count(*) FILTER (WHERE a.done_at IS NULL)::text AS pending_apps
       FROM platform.account_deletions d
       JOIN platform.account_deletion_apps a ON a.deletion_id = d.id
       WHERE d.finished_at IS NULL AND ($2::text IS NULL OR d.id = $2)
       GROUP BY d.id
       HAVING bool_or(a.app_id = $1)`,
      [appId, deletionId ?? null],
    );
    return rows;
  }

  async #resumeOne(row: DeletionRow): Promise<void> {
    const { central, appId, clock } = this.#o;
    // The address is needed until the confirmation email is sent; a finished central part
    // without one means it was sent already.
    const person = personOf(row);
    let pending = Number(row.pending_apps);
    if (!row.app_done) {
      await this.#appPart(row, person);
      pending -= 1;
    }
    if (this.#stopped || pending > 0) return;
    if (row.central_done_at === null && !(await this.#centralPart(row, person))) return;
    if (row.notify_app_id !== appId || row.notify_email === null || this.#stopped) return;
    // At least once: a broker stopped between these two statements sends it again.
    await this.#o.outbox.capture(
      {
        from: 'auth',
        to: row.notify_email,
        subject: 'Your account was deleted',
        text: `The account ${row.notify_email} and everything listed on the deletion page were deleted, as you asked. This cannot be undone. If you did not ask for it, reply to this email.`,
      },
      ['auth'],
    );
    await central.query(
      'UPDATE platform.account_deletions SET notify_email = NULL, finished_at = $2 WHERE id = $1',
      [row.id, clock.now()],
    );
    this.#o.print(`[auth] Account ${row.account_id} was deleted.`);
  }

  // This app's part: wipe it with its organisation, or remove the person from it; then record it.
  async #appPart(row: DeletionRow, person: ErasedPerson): Promise<void> {
    if (row.whole_organisation) await wipeApp(this.#o.db, this.#o.stateDir, this.#o.erasures);
    else await removePersonFromApp(this.#o.db, person, this.#o.erasures);
    await this.#o.central.query(
      `UPDATE platform.account_deletion_apps SET done_at = $3
       WHERE deletion_id = $1 AND app_id = $2 AND done_at IS NULL`,
      [row.id, this.#o.appId, this.#o.clock.now()],
    );
  }

  // The person's rows and account record, once every app is done, by whichever broker takes
  // the lease first.
  async #centralPart(row: DeletionRow, person: ErasedPerson): Promise<boolean> {
    const { central, clock } = this.#o;
    const now = clock.now();
    const { rowCount } = await central.query(
      `UPDATE platform.account_deletions SET lease_until = $2
       WHERE id = $1 AND central_done_at IS NULL AND (lease_until IS NULL OR lease_until < $3)`,
      [row.id, new Date(now.getTime() + LEASE_MS), now],
    );
    if (rowCount === 0) return false;
    await central.transaction(async (tx) => {
      await erasePerson(tx, person, this.#o.erasures);
      await tx.query(
        'UPDATE platform.account_deletions SET central_done_at = $2, lease_until = NULL WHERE id = $1',
        [row.id, clock.now()],
      );
    });
    return true;
  }
}

/** The deleted person as each feature's erasure sees them. */
function personOf(row: DeletionRow): ErasedPerson {
  return {
    accountId: row.account_id,
    email: row.notify_email ?? '',
    requestedAt: new Date(row.requested_at),
  };
}
