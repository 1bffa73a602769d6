import type { Database, Queryable } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import {
  type CredentialInfoBase,
  type CredentialKindSpec,
  type CredentialRow,
  credentialInfo,
  insertCredential,
  useCredential,
} from './credential-rows.ts';
import { RecentLastUse } from './last-use.ts';

/** The fixed start of every account credential: `plat_account_` and 256 random bits. */
export const ACCOUNT_CREDENTIAL_PREFIX = 'plat_account_';

/** An account credential as listed: never its value. */
export type AccountCredentialInfo = CredentialInfoBase;

const account: CredentialKindSpec = { kind: 'account', prefix: ACCOUNT_CREDENTIAL_PREFIX };

/**
 * Account credentials (docs/auth.md): what `platform login --to <base_url>` keeps, acting as one
 * account at the organisation's `{base_url}`. They share the agent credentials' table (kind
 * `account`, no app), so account deletion revokes and erases them with the agents': kept as
 * SHA-256, looked up on every request, revocable by their account.
 */
export class AccountCredentials {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #lastUse = new RecentLastUse();

  constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /** Mints a credential for `accountId`; the answer is the only copy of its value. */
  async issue(
    accountId: string,
    name: string,
    on: Queryable = this.#db,
  ): Promise<AccountCredentialInfo & { token: string }> {
    const id = newId('accountCredential');
    const now = this.#clock.now();
    const { row, token } = await insertCredential(on, account, {
      id,
      accountId,
      appId: null,
      name,
      now,
    });
    return { ...credentialInfo(row), token };
  }

  /** The live credential behind `value` (its use recorded), if any. */
  async verify(value: string): Promise<AccountCredentialInfo | undefined> {
    const row = await useCredential(this.#db, account, value, this.#clock.now(), this.#lastUse);
    return row === undefined ? undefined : credentialInfo(row);
  }

  /** The live account credentials of `accountId`, oldest first. */
  async list(accountId: string): Promise<AccountCredentialInfo[]> {
    const { rows } = await this.#db.query<CredentialRow>(
      `SELECT * FROM platform.agent_credentials
       WHERE account_id = $1 AND kind = 'account' AND revoked_at IS NULL
       ORDER BY created_at, id`,
      [accountId],
    );
    return rows.map(credentialInfo);
  }

  /** Revokes one credential of `accountId`; `false` when it has no such live one. */
  async revoke(accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `UPDATE platform.agent_credentials SET revoked_at = $3
       WHERE id = $1 AND account_id = $2 AND kind = 'account' AND revoked_at IS NULL`,
      [id, accountId, this.#clock.now()],
    );
    return rowCount > 0;
  }
}
