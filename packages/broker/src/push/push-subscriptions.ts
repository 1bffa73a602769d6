import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import type { PushSubscriptionKeys } from './subscription-check.ts';

/** A stored subscription: a device of one user of one app. */
export interface StoredSubscription extends PushSubscriptionKeys {
  readonly userId: string;
}

interface SubscriptionRow {
  endpoint: string;
  user_id: string;
  p256dh: string;
  auth: string;
}

/**
 * The push subscriptions of one app (`platform.push_subscriptions`), per user. Each write is
 * one statement or one transaction, so a failed request leaves no half-written row.
 *
 * @example
 * ```ts
 * const subscriptions = new PushSubscriptions(db, 'local');
 * await subscriptions.save(userId, { endpoint, keys: { p256dh, auth } });
 * ```
 */
export class PushSubscriptions {
  readonly #db: Database;
  readonly #appId: string;

  constructor(db: Database, appId: string) {
    this.#db = db;
    this.#appId = appId;
  }

  /**
   * Stores a checked subscription for `userId`. The same endpoint again replaces its keys and
   * owner (a device belongs to whoever subscribed it last); beyond
   * `limits.push.subscriptionsPerUser` the user's oldest devices are forgotten.
   */
  async save(userId: string, subscription: PushSubscriptionKeys): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO platform.push_subscriptions (endpoint, app_id, user_id, p256dh, auth)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (endpoint) DO UPDATE SET app_id = $2, user_id = $3, p256dh = $4, auth = $5, created_at = now()`,
        [
          subscription.endpoint,
          this.#appId,
          userId,
          subscription.keys.p256dh,
          subscription.keys.auth,
        ],
      );
      await tx.query(
        `DELETE FROM platform.push_subscriptions WHERE endpoint IN (
           SELECT endpoint FROM platform.push_subscriptions WHERE app_id = $1 AND user_id = $2
           ORDER BY created_at DESC, endpoint OFFSET $3)`,
        [this.#appId, userId, limits.push.subscriptionsPerUser],
      );
    });
  }

  /** Forgets `endpoint` if it belongs to `userId`; whether it did. */
  async remove(userId: string, endpoint: string): Promise<boolean> {
    const { rows } = await this.#db.query<{ endpoint: string }>(
      `DELETE FROM platform.push_subscriptions WHERE app_id = $1 AND user_id = $2 AND endpoint = $3
       RETURNING endpoint`,
      [this.#appId, userId, endpoint],
    );
    return rows.length > 0;
  }

  /** Forgets `endpoint` whoever owns it (its push service answered 404 or 410). */
  async expire(endpoint: string): Promise<void> {
    await this.#db.query(
      'DELETE FROM platform.push_subscriptions WHERE app_id = $1 AND endpoint = $2',
      [this.#appId, endpoint],
    );
  }

  /** Every subscription of the given users, oldest first. */
  async ofUsers(userIds: readonly string[]): Promise<StoredSubscription[]> {
    if (userIds.length === 0) return [];
    const { rows } = await this.#db.query<SubscriptionRow>(
      `SELECT endpoint, user_id, p256dh, auth FROM platform.push_subscriptions
       WHERE app_id = $1 AND user_id::text = ANY($2::text[]) ORDER BY created_at, endpoint`,
      [this.#appId, userIds.map((id) => id.toLowerCase())],
    );
    return rows.map((row) => ({
      endpoint: row.endpoint,
      userId: row.user_id,
      keys: { p256dh: row.p256dh, auth: row.auth },
    }));
  }
}
