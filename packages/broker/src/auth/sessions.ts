import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { hmac, randomSecret, safeEqual, sha256 } from '../kernel/crypto.ts';
import { newId } from '../kernel/ids.ts';

/**
 * How long the refresh token replaced by a rotation is still accepted (ours): two tabs of one
 * browser that refresh at the same moment both send the same cookie, and the slower one must
 * not look like a stolen token. Outside this window the old token is a reuse.
 */
export const REFRESH_REUSE_INTERVAL_MS = 10_000;

/** One browser session: each sign-in creates its own (spec 2.1). */
export interface Session {
  readonly id: string;
  readonly accountId: string;
  /** Created by password registration; ends at the confirmation deadline. */
  readonly provisional: boolean;
  readonly createdAt: Date;
  /**
   * When the person last proved who they are for this session: its creation for a sign-in, the
   * original sign-in's time for a session handed over from another app of the organisation (so
   * a handover never makes a sign-in look recent, spec 3.5).
   */
  readonly signedInAt: Date;
  /** Fixed at creation, never extended (30 days, or the confirmation deadline). */
  readonly expiresAt: Date;
}

/** The answer to a presented session cookie. */
export type SessionCheck =
  /** `cookie` is the rotated cookie value to set, absent inside the reuse interval. */
  | { readonly ok: true; readonly session: Session; readonly cookie?: string | undefined }
  | { readonly ok: false; readonly reason: 'unknown' | 'revoked' | 'expired' | 'reused' };

interface SessionRow {
  id: string;
  account_id: string;
  provisional: boolean;
  refresh_hash: string;
  previous_refresh_hash: string | null;
  rotated_at: Date | string;
  created_at: Date | string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
  signed_in_at: Date | string | null;
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  accountId: row.account_id,
  provisional: row.provisional,
  createdAt: new Date(row.created_at),
  signedInAt: new Date(row.signed_in_at ?? row.created_at),
  expiresAt: new Date(row.expires_at),
});

/** `<session id>.<refresh token>`: the value of the HttpOnly session cookie. */
const cookieValue = (id: string, refresh: string): string => `${id}.${refresh}`;

/**
 * Browser sessions in `platform.sessions`. The HttpOnly session cookie carries the session id
 * and its current refresh token; the broker stores only the token's SHA-256. Every refresh
 * rotates the token; presenting a replaced token after {@link REFRESH_REUSE_INTERVAL_MS} is
 * reuse and revokes the session (spec 2.1).
 *
 * Reuse means a token this session really had: each refresh token is `<random>.<HMAC(key,
 * session id, random)>`, so any token the broker issued to the session, however many rotations
 * ago, is recognised without storing it. The session id is no secret (every access JWT names
 * it), so a value the broker never issued is only refused and ends nothing.
 */
export class Sessions {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #appId: string;
  readonly #tokenKey: string;

  /** `tokenKey` signs refresh tokens (a secret of the broker's, e.g. its stored CSRF key). */
  constructor(db: Database, clock: Clock, appId: string, tokenKey: string) {
    this.#db = db;
    this.#clock = clock;
    this.#appId = appId;
    this.#tokenKey = tokenKey;
  }

  // A new refresh token of session `id`, recognisable later as issued to it.
  #issue(id: string): string {
    const random = randomSecret();
    return `${random}.${hmac(this.#tokenKey, `refresh:${id}.${random}`)}`;
  }

  // Whether `refresh` is a token the broker issued to session `id` (current or rotated out).
  #issuedTo(id: string, refresh: string): boolean {
    const dot = refresh.indexOf('.');
    if (dot <= 0) return false;
    const expected = hmac(this.#tokenKey, `refresh:${id}.${refresh.slice(0, dot)}`);
    return safeEqual(refresh.slice(dot + 1), expected);
  }

  /**
   * Starts a session ending at `expiresAt`; resolves to it and its first cookie value.
   * `signedInAt` is when the person signed in, for a session handed over from another app
   * (default: now, a sign-in here).
   */
  async create(
    accountId: string,
    options: { provisional: boolean; expiresAt: Date; signedInAt?: Date | undefined },
  ): Promise<{ session: Session; cookie: string }> {
    const id = newId('session');
    const refresh = this.#issue(id);
    const now = this.#clock.now();
    const signedInAt = options.signedInAt ?? now;
    await this.#db.query(
      `INSERT INTO platform.sessions
         (id, account_id, app_id, provisional, refresh_hash, rotated_at, created_at, expires_at,
          signed_in_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8)`,
      [
        id,
        accountId,
        this.#appId,
        options.provisional,
        sha256(refresh),
        now,
        options.expiresAt,
        signedInAt,
      ],
    );
    return {
      session: {
        id,
        accountId,
        provisional: options.provisional,
        createdAt: now,
        signedInAt,
        expiresAt: options.expiresAt,
      },
      cookie: cookieValue(id, refresh),
    };
  }

  /**
   * Checks a cookie value; with `rotate`, a valid current token is replaced by a new one
   * (the answer's `cookie`). A replaced token outside the reuse interval revokes the session;
   * a value never issued to this session is `unknown` and changes nothing.
   */
  async check(value: string, options: { rotate: boolean }): Promise<SessionCheck> {
    const dot = value.indexOf('.');
    if (dot <= 0) return { ok: false, reason: 'unknown' };
    const id = value.slice(0, dot);
    const refreshValue = value.slice(dot + 1);
    const presented = sha256(refreshValue);
    const now = this.#clock.now();
    return this.#db.transaction(async (tx) => {
      const { rows } = await tx.query<SessionRow>(
        'SELECT * FROM platform.sessions WHERE id = $1 AND app_id = $2 FOR UPDATE',
        [id, this.#appId],
      );
      const row = rows[0];
      if (row === undefined) return { ok: false, reason: 'unknown' } as const;
      if (row.revoked_at !== null) return { ok: false, reason: 'revoked' } as const;
      if (now >= new Date(row.expires_at)) return { ok: false, reason: 'expired' } as const;
      const session = toSession(row);
      if (safeEqual(presented, row.refresh_hash)) {
        if (!options.rotate) return { ok: true, session } as const;
        const refresh = this.#issue(id);
        await tx.query(
          `UPDATE platform.sessions
             SET previous_refresh_hash = refresh_hash, refresh_hash = $2, rotated_at = $3
           WHERE id = $1`,
          [id, sha256(refresh), now],
        );
        return { ok: true, session, cookie: cookieValue(id, refresh) } as const;
      }
      const previous = row.previous_refresh_hash;
      const sinceRotation = now.getTime() - new Date(row.rotated_at).getTime();
      if (
        previous !== null &&
        safeEqual(presented, previous) &&
        sinceRotation <= REFRESH_REUSE_INTERVAL_MS
      ) {
        return { ok: true, session } as const;
      }
      // Anyone can pair the session id with a made-up value: that is refused, nothing more.
      const replaced = previous !== null && safeEqual(presented, previous);
      if (!replaced && !this.#issuedTo(id, refreshValue)) {
        return { ok: false, reason: 'unknown' } as const;
      }
      await tx.query(
        `UPDATE platform.sessions SET revoked_at = $2, revoked_reason = 'refresh token reused' WHERE id = $1`,
        [id, now],
      );
      return { ok: false, reason: 'reused' } as const;
    });
  }

  /** The session if it is neither revoked nor expired (access JWTs are revalidated with it). */
  async active(id: string): Promise<Session | undefined> {
    const { rows } = await this.#db.query<SessionRow>(
      `SELECT * FROM platform.sessions
       WHERE id = $1 AND app_id = $2 AND revoked_at IS NULL AND expires_at > $3`,
      [id, this.#appId, this.#clock.now()],
    );
    return rows[0] === undefined ? undefined : toSession(rows[0]);
  }

  /**
   * Ends every live session of an account except `keep` (after a password change: whoever
   * knew the old password is signed out everywhere else).
   */
  async revokeOthers(accountId: string, keep: string | undefined, reason: string): Promise<void> {
    await this.#db.query(
      `UPDATE platform.sessions SET revoked_at = $3, revoked_reason = $4
       WHERE account_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $2`,
      [accountId, keep ?? null, this.#clock.now(), reason],
    );
  }

  /** Ends one session (sign-out of one browser, spec 3.4). */
  async revoke(id: string, reason: string): Promise<void> {
    await this.#db.query(
      'UPDATE platform.sessions SET revoked_at = $2, revoked_reason = $3 WHERE id = $1 AND revoked_at IS NULL',
      [id, this.#clock.now(), reason],
    );
  }
}
