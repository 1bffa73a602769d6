import type { Database, Queryable } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import { newId } from '../kernel/ids.ts';

/** The fixed start of every agent credential: `plat_agent_` and 256 random bits. */
export const AGENT_CREDENTIAL_PREFIX = 'plat_agent_';

/** An agent credential as listed: never its value. */
export interface AgentCredentialInfo {
  readonly id: string;
  readonly accountId: string;
  /** The one app it acts on. */
  readonly appId: string;
  readonly name: string;
  /** The prefix and first characters (`plat_agent_Ab3d…`). */
  readonly hint: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

interface CredentialRow {
  id: string;
  account_id: string;
  app_id: string;
  name: string;
  hint: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
}

const toInfo = (row: CredentialRow): AgentCredentialInfo => ({
  id: row.id,
  accountId: row.account_id,
  appId: row.app_id,
  name: row.name,
  hint: row.hint,
  createdAt: new Date(row.created_at).toISOString(),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
});

/**
 * Agent credentials (spec 5.2.5, docs/agents.md) beside the accounts: an agent acts for one
 * account on one app with a credential of its own, never the browser session. Kept as SHA-256,
 * looked up on every request, revoked with the account.
 */
export class AgentCredentials {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /** Mints a credential for `accountId` on `appId`; the answer is the only copy of its value. */
  async issue(
    accountId: string,
    appId: string,
    name: string,
    on: Queryable = this.#db,
  ): Promise<AgentCredentialInfo & { token: string }> {
    const token = AGENT_CREDENTIAL_PREFIX + randomSecret();
    const { rows } = await on.query<CredentialRow>(
      `INSERT INTO platform.agent_credentials
         (id, account_id, app_id, name, token_hash, hint, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [
        newId('agentCredential'),
        accountId,
        appId,
        name,
        sha256(token),
        `${token.slice(0, AGENT_CREDENTIAL_PREFIX.length + 4)}…`,
        this.#clock.now(),
      ],
    );
    return { ...toInfo(rows[0] as CredentialRow), token };
  }

  /** The live credential behind `value` (its use recorded), if any. */
  async verify(value: string): Promise<AgentCredentialInfo | undefined> {
    if (!value.startsWith(AGENT_CREDENTIAL_PREFIX)) return undefined;
    const { rows } = await this.#db.query<CredentialRow>(
      `UPDATE platform.agent_credentials SET last_used_at = $2
       WHERE token_hash = $1 AND kind = 'agent' AND revoked_at IS NULL RETURNING *`,
      [sha256(value), this.#clock.now()],
    );
    return rows[0] === undefined ? undefined : toInfo(rows[0]);
  }

  /** The live credentials acting on `appId`, oldest first. */
  async list(appId: string): Promise<AgentCredentialInfo[]> {
    const { rows } = await this.#db.query<CredentialRow>(
      `SELECT * FROM platform.agent_credentials WHERE app_id = $1 AND revoked_at IS NULL
       ORDER BY created_at, id`,
      [appId],
    );
    return rows.map(toInfo);
  }

  /** Revokes one credential of `appId`; `false` when there is no such live one. */
  async revoke(appId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `UPDATE platform.agent_credentials SET revoked_at = $3
       WHERE id = $1 AND app_id = $2 AND revoked_at IS NULL`,
      [id, appId, this.#clock.now()],
    );
    return rowCount > 0;
  }
}
