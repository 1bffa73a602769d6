import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';

/**
 * One-time codes that carry a sign-in from one app of the organisation to another, in the
 * central store: the issuing app (where the browser has a session) binds a code to the account,
 * the receiving app and the hash of the receiving browser's nonce cookie, with the time of the
 * sign-in it carries; the receiving app redeems it once, within {@link limits.handoffSeconds},
 * and starts its own session, as recent as that sign-in and no more.
 */
export class Handoffs {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(central: Database, clock: Clock) {
    this.#db = central;
    this.#clock = clock;
  }

  /**
   * A new code for `accountId` to sign in at `appId`, redeemable with the nonce behind
   * `stateHash`; `signedInAt` is when the person signed in to the issuing app's session, which
   * the receiving app's session keeps.
   */
  async issue(
    accountId: string,
    appId: string,
    stateHash: string,
    signedInAt: Date,
  ): Promise<string> {
    const code = randomSecret();
    const now = this.#clock.now();
    await this.#db.query(
      `INSERT INTO platform.handoffs
         (code_hash, account_id, app_id, state_hash, created_at, expires_at, signed_in_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        sha256(code),
        accountId,
        appId,
        stateHash,
        now,
        new Date(now.getTime() + limits.handoffSeconds * 1000),
        signedInAt,
      ],
    );
    return code;
  }

  /**
   * The account and original sign-in time of a live, unused code for `appId` and this nonce;
   * the code is used up.
   */
  async redeem(
    code: string,
    appId: string,
    nonce: string,
  ): Promise<{ accountId: string; signedInAt: Date } | undefined> {
    const { rows } = await this.#db.query<{
      account_id: string;
      signed_in_at: Date | string | null;
    }>(
      `UPDATE platform.handoffs SET used_at = $4
       WHERE code_hash = $1 AND app_id = $2 AND state_hash = $3 AND used_at IS NULL AND expires_at > $4
       RETURNING account_id, signed_in_at`,
      [sha256(code), appId, sha256(nonce), this.#clock.now()],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    // A code issued before sign-in times were recorded says nothing of it: never recent.
    return { accountId: row.account_id, signedInAt: new Date(row.signed_in_at ?? 0) };
  }
}
