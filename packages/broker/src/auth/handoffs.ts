import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';

/**
 * One-time codes that carry a sign-in from one app of the organisation to another, in the
 * central store: the issuing app (where the browser has a session) binds a code to the account,
 * the receiving app and the hash of the receiving browser's nonce cookie; the receiving app
 * redeems it once, within {@link limits.handoffSeconds}, and starts its own session.
 */
export class Handoffs {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(central: Database, clock: Clock) {
    this.#db = central;
    this.#clock = clock;
  }

  /** A new code for `accountId` to sign in at `appId`, redeemable with the nonce behind `stateHash`. */
  async issue(accountId: string, appId: string, stateHash: string): Promise<string> {
    const code = randomSecret();
    const now = this.#clock.now();
    await this.#db.query(
      `INSERT INTO platform.handoffs (code_hash, account_id, app_id, state_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        sha256(code),
        accountId,
        appId,
        stateHash,
        now,
        new Date(now.getTime() + limits.handoffSeconds * 1000),
      ],
    );
    return code;
  }

  /** The account of a live, unused code for `appId` and this nonce; the code is used up. */
  async redeem(code: string, appId: string, nonce: string): Promise<string | undefined> {
    const { rows } = await this.#db.query<{ account_id: string }>(
      `UPDATE platform.handoffs SET used_at = $4
       WHERE code_hash = $1 AND app_id = $2 AND state_hash = $3 AND used_at IS NULL AND expires_at > $4
       RETURNING account_id`,
      [sha256(code), appId, sha256(nonce), this.#clock.now()],
    );
    return rows[0]?.account_id;
  }
}
