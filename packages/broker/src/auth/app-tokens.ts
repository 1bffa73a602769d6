import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';

/**
 * The fixed start of every app access token (spec 2.2: the service prefix, then `app_`). Secret
 * scanners can match `plat_app_[A-Za-z0-9_-]{43}`.
 */
export const APP_TOKEN_PREFIX = 'plat_app_';

/** An app access token as listed: never its value. */
export interface AppTokenInfo {
  readonly id: string;
  readonly name: string;
  /** The prefix and first characters, to recognise a token (`plat_app_Ab3d…`). */
  readonly hint: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

interface TokenRow {
  id: string;
  name: string;
  hint: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
}

const toInfo = (row: TokenRow): AppTokenInfo => ({
  id: row.id,
  name: row.name,
  hint: row.hint,
  createdAt: new Date(row.created_at).toISOString(),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
});

/**
 * App access tokens (spec 2.2) in `platform.app_tokens`: 256 random bits after
 * {@link APP_TOKEN_PREFIX}, shown once, stored as SHA-256 (enough for a high-entropy secret;
 * a lookup by digest leaks nothing useful), bound to one app, looked up again on every request.
 */
export class AppTokens {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #appId: string;

  constructor(db: Database, clock: Clock, appId: string) {
    this.#db = db;
    this.#clock = clock;
    this.#appId = appId;
  }

  /**
   * Creates a token; `token` is the only time the value exists outside the caller's hands.
   *
   * @example
   * ```ts
   * const { token } = await tokens.create('ci'); // 'plat_app_…'
   * ```
   */
  async create(name: string): Promise<AppTokenInfo & { token: string }> {
    const token = APP_TOKEN_PREFIX + randomSecret();
    const id = `tok_${randomSecret(9)}`;
    const hint = `${token.slice(0, APP_TOKEN_PREFIX.length + 4)}…`;
    const { rows } = await this.#db.query<TokenRow>(
      `INSERT INTO platform.app_tokens (id, app_id, name, token_hash, hint, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [id, this.#appId, name, sha256(token), hint, this.#clock.now()],
    );
    return { ...toInfo(rows[0] as TokenRow), token };
  }

  /** The app's tokens that are not revoked, oldest first. */
  async list(): Promise<AppTokenInfo[]> {
    const { rows } = await this.#db.query<TokenRow>(
      `SELECT * FROM platform.app_tokens WHERE app_id = $1 AND revoked_at IS NULL
       ORDER BY created_at, id`,
      [this.#appId],
    );
    return rows.map(toInfo);
  }

  /** Revokes a token by id; `false` when this app has no such live token. */
  async revoke(id: string): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `UPDATE platform.app_tokens SET revoked_at = $3
       WHERE id = $1 AND app_id = $2 AND revoked_at IS NULL`,
      [id, this.#appId, this.#clock.now()],
    );
    return rowCount > 0;
  }

  /** Whether `value` is a live token of this app (checked on every request). */
  async verify(value: string): Promise<boolean> {
    if (!value.startsWith(APP_TOKEN_PREFIX)) return false;
    const { rowCount } = await this.#db.query(
      `UPDATE platform.app_tokens SET last_used_at = $3
       WHERE token_hash = $1 AND app_id = $2 AND revoked_at IS NULL`,
      [sha256(value), this.#appId, this.#clock.now()],
    );
    return rowCount > 0;
  }
}
