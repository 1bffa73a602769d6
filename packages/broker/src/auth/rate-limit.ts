import type { Database, Queryable } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { sha256 } from '../kernel/crypto.ts';

/** One limit an attempt counts against: at most `max` attempts of `key` per window. */
export interface LimitedKey {
  /** Which limit (`email`, `client`, `registration`): the same key counts apart per limit. */
  readonly limit: string;
  /** Whose attempts (an address, a client); stored only as its hash. */
  readonly key: string;
  readonly max: number;
  readonly windowSeconds: number;
}

/** What {@link SignInLimits.reserve} answered. */
export type Reservation =
  /** Counted against every key: `handles` take it back ({@link SignInLimits.release}). */
  | { readonly reserved: true; readonly handles: readonly string[] }
  /** A key is at its limit: nothing was counted; try again after this many seconds. */
  | { readonly reserved: false; readonly retryAfterSeconds: number };

/**
 * Counts sign-in attempts per key in a sliding window, in the database that holds the accounts
 * (`platform.sign_in_attempts`), so that every broker on that database counts the same
 * attempts: behind a load balancer, posts spread over several nodes meet one limit. Used for
 * password attempts (by address and by client) and registrations (by client).
 *
 * @example
 * ```ts
 * const limits = new SignInLimits(central, clock);
 * const slot = await limits.reserve([{ limit: 'email', key: 'a@b.c', max: 5, windowSeconds: 900 }]);
 * if (!slot.reserved) refuse(slot.retryAfterSeconds);
 * else if (await passwordMatches()) await limits.release(slot.handles);
 * ```
 */
export class SignInLimits {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /**
   * Checks every key and, when none is at its limit, counts one attempt against each, in one
   * transaction that holds each key's lock: attempts made at the same moment, on this broker or
   * another, see each other, so a slow password check cannot let them all through.
   */
  async reserve(keys: readonly LimitedKey[]): Promise<Reservation> {
    const now = this.#clock.now();
    const hashed = keys
      .map((k) => ({ ...k, hash: sha256(k.key) }))
      .sort((a, b) => `${a.limit}:${a.hash}`.localeCompare(`${b.limit}:${b.hash}`));
    return this.#db.transaction(async (tx) => {
      // Locks taken in one order everywhere, so two reservations never wait on each other.
      for (const k of hashed) await tx.lock(`sign-in-limit:${k.limit}:${k.hash}`);
      let wait = 0;
      for (const k of hashed) wait = Math.max(wait, await this.#blockedFor(tx, k, k.hash, now));
      if (wait > 0) return { reserved: false, retryAfterSeconds: wait };
      const handles: string[] = [];
      for (const k of hashed) {
        const { rows } = await tx.query<{ id: string }>(
          `INSERT INTO platform.sign_in_attempts (limit_name, key_hash, at) VALUES ($1, $2, $3)
           RETURNING id::text AS id`,
          [k.limit, k.hash, now],
        );
        handles.push((rows[0] as { id: string }).id);
      }
      return { reserved: true, handles };
    });
  }

  /** Takes back {@link reserve}d attempts that did not fail. */
  async release(handles: readonly string[]): Promise<void> {
    if (handles.length === 0) return;
    await this.#db.query('DELETE FROM platform.sign_in_attempts WHERE id = ANY($1::bigint[])', [
      handles,
    ]);
  }

  /** Forgets every attempt of `key` under `limit` (after a success). */
  async reset(limit: string, key: string): Promise<void> {
    await this.#db.query(
      'DELETE FROM platform.sign_in_attempts WHERE limit_name = $1 AND key_hash = $2',
      [limit, sha256(key)],
    );
  }

  // Seconds until the oldest of the last `max` attempts leaves the window; 0 when fewer than
  // `max` are in it. Attempts older than the window go first, for this limit and every key.
  async #blockedFor(tx: Queryable, k: LimitedKey, hash: string, now: Date): Promise<number> {
    const windowMs = k.windowSeconds * 1000;
    const since = new Date(now.getTime() - windowMs);
    await tx.query('DELETE FROM platform.sign_in_attempts WHERE limit_name = $1 AND at <= $2', [
      k.limit,
      since,
    ]);
    const { rows } = await tx.query<{ at_ms: number }>(
      `SELECT (extract(epoch FROM at) * 1000)::float8 AS at_ms FROM platform.sign_in_attempts
       WHERE limit_name = $1 AND key_hash = $2 AND at > $3
       ORDER BY at DESC, id DESC OFFSET $4 LIMIT 1`,
      [k.limit, hash, since, k.max - 1],
    );
    const oldest = rows[0]?.at_ms;
    if (oldest === undefined) return 0;
    return Math.max(1, Math.ceil((Number(oldest) + windowMs - now.getTime()) / 1000));
  }
}
