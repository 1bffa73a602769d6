import type { Database, Queryable } from '../db/database.ts';
import type { SchemaChange } from '../db/platform-schema.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';

/**
 * The hold of a copy restored from a backup beside the live app (docs/backups.md): one row in
 * the copy's own database, so the copy can never start without it, whichever host serves it,
 * and a backup of the copy carries it too.
 */
export const inspectionHoldStep: SchemaChange = {
  name: 'inspection hold',
  sql: `
CREATE TABLE platform.inspection_hold (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  live_app_id text NOT NULL,
  backup_id text NOT NULL,
  held_at timestamptz NOT NULL
);
`,
};

/** How long a read of the hold is reused: the worker and cron ask on every poll. */
const CACHE_MS = 1000;

/**
 * Whether the app is a copy held for inspection: its background work (jobs, cron, Web Push,
 * integration syncs and event deliveries) does not run, so a copy made to look at old data
 * never acts on the world a second time. Its data API, pages and Functions its owner calls
 * still work.
 *
 * @example
 * ```ts
 * const hold = new InspectionHold(db);
 * if (await hold.held()) return; // a held copy runs no job
 * ```
 */
export class InspectionHold {
  readonly #db: Queryable;
  #cached: { held: boolean; at: number } | undefined;

  constructor(db: Queryable) {
    this.#db = db;
  }

  /** Places the hold on the database `tx` of a copy restored from backup `backupId`. */
  static async place(
    tx: Queryable,
    hold: { liveAppId: string; backupId: string; at: Date },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO platform.inspection_hold (live_app_id, backup_id, held_at) VALUES ($1, $2, $3)
       ON CONFLICT (only_row) DO NOTHING`,
      [hold.liveAppId, hold.backupId, hold.at],
    );
  }

  /** True while the app is a held copy (read at most once a second). */
  async held(): Promise<boolean> {
    const now = Date.now();
    if (this.#cached !== undefined && now - this.#cached.at < CACHE_MS) return this.#cached.held;
    const { rows } = await this.#db.query('SELECT 1 FROM platform.inspection_hold');
    this.#cached = { held: rows.length > 0, at: now };
    return this.#cached.held;
  }
}

/**
 * `paused` for the background work of an app: true while `paused` is (its owner's verification)
 * or the app is a copy held for inspection.
 */
export function heldOrPaused(
  hold: InspectionHold,
  paused: () => Promise<boolean>,
): () => Promise<boolean> {
  return async () => (await hold.held()) || (await paused());
}

/** The inspection hold of the app's database, which jobs, cron and Web Push consult. */
export const inspectionHoldFeature: BrokerFeature<'hold', object, InspectionHold> = {
  name: 'hold',
  start: (base: { db: Database }) => new InspectionHold(base.db),
};
