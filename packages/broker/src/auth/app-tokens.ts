import { limits } from '@platform/schema';
import type { Database, Queryable } from '../db/database.ts';
import { addSeconds, type Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import { newId } from '../kernel/ids.ts';
import { RecentLastUse, useRecordingLastUse } from './last-use.ts';

/**
 * The fixed start of every app access token (spec 2.2: the service prefix, then `app_`). Secret
 * scanners can match `plat_app_[A-Za-z0-9_-]{43}`.
 */
export const APP_TOKEN_PREFIX = 'plat_app_';

/**
 * `active`: usable; `awaiting_reveal`: made, its value not yet shown (its reveal link is still
 * good); `reveal_expired`: the link ran out before anyone opened it, so the token never had a
 * value and never will (revoke it).
 */
export type AppTokenState = 'active' | 'awaiting_reveal' | 'reveal_expired';

/** An app access token as listed: never its value. */
export interface AppTokenInfo {
  readonly id: string;
  readonly name: string;
  readonly state: AppTokenState;
  /** The prefix and first characters, to recognise a token (`plat_app_Ab3d…`); `null` until revealed. */
  readonly hint: string | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  /** Until when the reveal link is good, while the token awaits it. */
  readonly revealExpiresAt: string | null;
}

/** Why a reveal link shows nothing. */
export type RevealProblem = 'unknown' | 'used' | 'expired';

interface TokenRow {
  id: string;
  name: string;
  hint: string | null;
  token_hash: string | null;
  created_at: Date | string;
  last_used_at: Date | string | null;
  reveal_expires_at: Date | string | null;
  revoked_at: Date | string | null;
}

type UseRow = Pick<TokenRow, 'last_used_at'>;

const iso = (value: Date | string | null) =>
  value === null ? null : new Date(value).toISOString();

/**
 * App access tokens (spec 2.2) in `platform.app_tokens`: 256 random bits after
 * {@link APP_TOKEN_PREFIX}, stored as SHA-256 (enough for a high-entropy secret; a lookup by
 * digest leaks nothing useful), bound to one app, looked up again on every request. A value
 * exists in exactly one place once: the answer to a claimed request, or the page a reveal link
 * opens.
 */
export class AppTokens {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #appId: string;
  readonly #lastUse = new RecentLastUse();

  constructor(db: Database, clock: Clock, appId: string) {
    this.#db = db;
    this.#clock = clock;
    this.#appId = appId;
  }

  /**
   * Mints an active token; `token` is the only time the value exists outside the caller's
   * hands. `on` lets a caller mint inside its own transaction.
   *
   * @example
   * ```ts
   * const { token } = await tokens.issue('ci'); // 'plat_app_…'
   * ```
   */
  async issue(name: string, on: Queryable = this.#db): Promise<AppTokenInfo & { token: string }> {
    const token = APP_TOKEN_PREFIX + randomSecret();
    const { rows } = await on.query<TokenRow>(
      `INSERT INTO platform.app_tokens (id, app_id, name, token_hash, hint, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [newId('appToken'), this.#appId, name, sha256(token), hintOf(token), this.#clock.now()],
    );
    return { ...this.#info(rows[0] as TokenRow), token };
  }

  /**
   * Makes a token whose value is made only when `revealSecret` is used ({@link reveal}), within
   * `limits.revealLinkSeconds`: the caller hands the secret on as a link, never the value.
   */
  async createRevealable(name: string): Promise<{ info: AppTokenInfo; revealSecret: string }> {
    const revealSecret = randomSecret();
    const now = this.#clock.now();
    const { rows } = await this.#db.query<TokenRow>(
      `INSERT INTO platform.app_tokens
         (id, app_id, name, reveal_hash, reveal_expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [
        newId('appToken'),
        this.#appId,
        name,
        sha256(revealSecret),
        addSeconds(now, limits.revealLinkSeconds),
        now,
      ],
    );
    return { info: this.#info(rows[0] as TokenRow), revealSecret };
  }

  /** The token a reveal link would show, without showing it (the page a GET renders). */
  async previewReveal(secret: string): Promise<AppTokenInfo | RevealProblem> {
    const row = await this.#byReveal(this.#db, secret);
    return typeof row === 'string' ? row : this.#info(row);
  }

  /** Gives the token of a reveal link its value, once: the link is spent by this call. */
  async reveal(secret: string): Promise<(AppTokenInfo & { token: string }) | RevealProblem> {
    return this.#db.transaction(async (tx) => {
      const row = await this.#byReveal(tx, secret, 'FOR UPDATE');
      if (typeof row === 'string') return row;
      const token = APP_TOKEN_PREFIX + randomSecret();
      const { rows } = await tx.query<TokenRow>(
        `UPDATE platform.app_tokens SET token_hash = $2, hint = $3, reveal_expires_at = NULL
         WHERE id = $1 RETURNING *`,
        [row.id, sha256(token), hintOf(token)],
      );
      return { ...this.#info(rows[0] as TokenRow), token };
    });
  }

  /** The app's tokens that are not revoked, oldest first. */
  async list(): Promise<AppTokenInfo[]> {
    const { rows } = await this.#db.query<TokenRow>(
      `SELECT * FROM platform.app_tokens WHERE app_id = $1 AND revoked_at IS NULL
       ORDER BY created_at, id`,
      [this.#appId],
    );
    return rows.map((row) => this.#info(row));
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

  /**
   * Whether `value` is a live token of this app (checked on every request, so a revoked token
   * is refused at once). Its last use is written at most once per `LAST_USE_INTERVAL_MS`: the
   * first use at once, later ones when the stored time is older than that.
   */
  async verify(value: string): Promise<boolean> {
    if (!value.startsWith(APP_TOKEN_PREFIX)) return false;
    const digest = sha256(value);
    const now = this.#clock.now();
    const row = await useRecordingLastUse<UseRow>(this.#lastUse, digest, now, {
      read: async () =>
        (
          await this.#db.query<UseRow>(
            `SELECT last_used_at FROM platform.app_tokens
             WHERE token_hash = $1 AND app_id = $2 AND revoked_at IS NULL`,
            [digest, this.#appId],
          )
        ).rows[0],
      write: async (staleBefore) =>
        (
          await this.#db.query<UseRow>(
            `WITH live AS (
               SELECT id, last_used_at FROM platform.app_tokens
               WHERE token_hash = $1 AND app_id = $2 AND revoked_at IS NULL
             ), used AS (
               UPDATE platform.app_tokens AS t SET last_used_at = $3 FROM live
               WHERE t.id = live.id AND t.revoked_at IS NULL
                 AND (t.last_used_at IS NULL OR t.last_used_at < $4)
               RETURNING t.id, t.last_used_at
             )
             SELECT COALESCE(used.last_used_at, live.last_used_at) AS last_used_at
             FROM live LEFT JOIN used ON used.id = live.id`,
            [digest, this.#appId, now, staleBefore],
          )
        ).rows[0],
    });
    return row !== undefined;
  }

  async #byReveal(on: Queryable, secret: string, lock = ''): Promise<TokenRow | RevealProblem> {
    const { rows } = await on.query<TokenRow>(
      `SELECT * FROM platform.app_tokens WHERE reveal_hash = $1 AND app_id = $2 ${lock}`,
      [sha256(secret), this.#appId],
    );
    const row = rows[0];
    if (row === undefined || row.revoked_at !== null) return 'unknown';
    if (row.token_hash !== null) return 'used';
    if (new Date(row.reveal_expires_at ?? 0) <= this.#clock.now()) return 'expired';
    return row;
  }

  #info(row: TokenRow): AppTokenInfo {
    const expires = row.reveal_expires_at === null ? null : new Date(row.reveal_expires_at);
    const state: AppTokenState =
      row.token_hash !== null
        ? 'active'
        : expires !== null && expires > this.#clock.now()
          ? 'awaiting_reveal'
          : 'reveal_expired';
    return {
      id: row.id,
      name: row.name,
      state,
      hint: row.hint,
      createdAt: new Date(row.created_at).toISOString(),
      lastUsedAt: iso(row.last_used_at),
      revealExpiresAt: state === 'awaiting_reveal' ? iso(row.reveal_expires_at) : null,
    };
  }
}

const hintOf = (token: string) => `${token.slice(0, APP_TOKEN_PREFIX.length + 4)}…`;
