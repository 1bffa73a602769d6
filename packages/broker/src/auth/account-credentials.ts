import type { Database, Queryable } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import { newId } from '../kernel/ids.ts';

/** The fixed start of every account credential: `plat_account_` and 256 random bits. */
export const ACCOUNT_CREDENTIAL_PREFIX = 'plat_account_';

/** An account credential as listed: never its value. */
export interface AccountCredentialInfo {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  /** The prefix and first characters (`plat_account_Ab3d…`). */
  readonly hint: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

interface CredentialRow {
  id: string;
  account_id: string;
  name: string;
  hint: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
}

const toInfo = (row: CredentialRow): AccountCredentialInfo => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  hint: row.hint,
  createdAt: new Date(row.created_at).toISOString(),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
});

/**
 * Account credentials (docs/auth.md): what `platform login --to <base_url>` keeps, acting as one
 * account at the organisation's `{base_url}`. They share the agent credentials' table (kind
 * `account`, no app), so account deletion revokes and erases them with the agents': kept as
 * SHA-256, looked up on every request, revocable by their account.
 */
export class AccountCredentials {
  readonly #db: Database;
  readonly #clock: Clock;

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
    const token = ACCOUNT_CREDENTIAL_PREFIX + randomSecret();
    const { rows } = await on.query<CredentialRow>(
      `INSERT INTO platform.agent_credentials
         (id, account_id, app_id, name, token_hash, hint, created_at, kind)
       VALUES ($1, $2, NULL, $3, $4, $5, $6, 'account') RETURNING *`,
      [
        newId('accountCredential'),
        accountId,
        name,
        sha256(token),
        `${token.slice(0, ACCOUNT_CREDENTIAL_PREFIX.length + 4)}…`,
        this.#clock.now(),
      ],
    );
    return { ...toInfo(rows[0] as CredentialRow), token };
  }

  /** The live credential behind `value` (its use recorded), if any. */
  async verify(value: string): Promise<AccountCredentialInfo | undefined> {
    if (!value.startsWith(ACCOUNT_CREDENTIAL_PREFIX)) return undefined;
    const { rows } = await this.#db.query<CredentialRow>(
      `UPDATE platform.agent_credentials SET last_used_at = $2
       WHERE token_hash = $1 AND kind = 'account' AND revoked_at IS NULL RETURNING *`,
      [sha256(value), this.#clock.now()],
    );
    return rows[0] === undefined ? undefined : toInfo(rows[0]);
  }

  /** The live account credentials of `accountId`, oldest first. */
  async list(accountId: string): Promise<AccountCredentialInfo[]> {
    const { rows } = await this.#db.query<CredentialRow>(
      `SELECT * FROM platform.agent_credentials
       WHERE account_id = $1 AND kind = 'account' AND revoked_at IS NULL
       ORDER BY created_at, id`,
      [accountId],
    );
    return rows.map(toInfo);
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
