import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';

/**
 * Who may open a private app (spec 5.3: access is separate from identity), by email address in
 * `platform.app_grants`, so an address can be granted before its account exists. Managed with
 * `platform access grant|revoke <email>`.
 */
export class AppGrants {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #appId: string;

  constructor(db: Database, clock: Clock, appId: string) {
    this.#db = db;
    this.#clock = clock;
    this.#appId = appId;
  }

  /** Grants access; granting twice is a no-op. Resolves to `false` when it already existed. */
  async grant(email: string): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `INSERT INTO platform.app_grants (app_id, email, granted_at) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [this.#appId, email, this.#clock.now()],
    );
    return rowCount > 0;
  }

  /** Revokes access; `false` when there was no grant. Open sessions are refused from the next request. */
  async revoke(email: string): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      'DELETE FROM platform.app_grants WHERE app_id = $1 AND email = $2',
      [this.#appId, email],
    );
    return rowCount > 0;
  }

  /** Granted addresses, alphabetically, with the time of the grant. */
  async list(): Promise<Array<{ email: string; grantedAt: string }>> {
    const { rows } = await this.#db.query<{ email: string; granted_at: Date | string }>(
      'SELECT email, granted_at FROM platform.app_grants WHERE app_id = $1 ORDER BY email',
      [this.#appId],
    );
    return rows.map((row) => ({
      email: row.email,
      grantedAt: new Date(row.granted_at).toISOString(),
    }));
  }

  /** Whether the address holds a grant to this app. */
  async has(email: string): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      'SELECT 1 FROM platform.app_grants WHERE app_id = $1 AND email = $2',
      [this.#appId, email],
    );
    return rowCount > 0;
  }
}
