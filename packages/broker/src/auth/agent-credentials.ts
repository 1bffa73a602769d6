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

/** The fixed start of every agent credential: `plat_agent_` and 256 random bits. */
export const AGENT_CREDENTIAL_PREFIX = 'plat_agent_';

/** An agent credential as listed: never its value. */
export interface AgentCredentialInfo extends CredentialInfoBase {
  /** The one app it acts on. */
  readonly appId: string;
}

const agent: CredentialKindSpec = { kind: 'agent', prefix: AGENT_CREDENTIAL_PREFIX };

const toInfo = (row: CredentialRow): AgentCredentialInfo => ({
  ...credentialInfo(row),
  appId: row.app_id as string,
});

/**
 * Agent credentials (spec 5.2.5, docs/agents.md) beside the accounts: an agent acts for one
 * account on one app with a credential of its own, never the browser session. Kept as SHA-256,
 * looked up on every request, revoked with the account.
 */
export class AgentCredentials {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #lastUse = new RecentLastUse();

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
    const id = newId('agentCredential');
    const now = this.#clock.now();
    const { row, token } = await insertCredential(on, agent, { id, accountId, appId, name, now });
    return { ...toInfo(row), token };
  }

  /** The live credential behind `value` (its use recorded), if any. */
  async verify(value: string): Promise<AgentCredentialInfo | undefined> {
    const row = await useCredential(this.#db, agent, value, this.#clock.now(), this.#lastUse);
    return row === undefined ? undefined : toInfo(row);
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
