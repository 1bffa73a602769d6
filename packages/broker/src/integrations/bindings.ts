import type { Database, Queryable } from '../db/database.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';

/** A consumer app's slot joined to one connection (spec 2.11). */
export interface Binding {
  readonly id: string;
  readonly consumerAppId: string;
  readonly slot: string;
  /** The slot's `account`: one binding for the app, or one per person for `calling_user`. */
  readonly account: 'app' | 'calling_user';
  /** Whose binding, for a `calling_user` slot; `null` for an `app` slot. */
  readonly personAccountId: string | null;
  readonly connectionId: string;
  /** The capabilities both the slot and the contract declare. */
  readonly capabilities: readonly string[];
  readonly createdBy: string;
  readonly createdAt: string;
}

interface Row {
  id: string;
  consumer_app_id: string;
  slot: string;
  account: 'app' | 'calling_user';
  person_account_id: string | null;
  connection_id: string;
  capabilities: string[];
  created_by: string;
  created_at: Date | string;
}

const COLUMNS =
  'id, consumer_app_id, slot, account, person_account_id, connection_id, capabilities, created_by, created_at';

function toBinding(row: Row): Binding {
  return {
    id: row.id,
    consumerAppId: row.consumer_app_id,
    slot: row.slot,
    account: row.account,
    personAccountId: row.person_account_id,
    connectionId: row.connection_id,
    capabilities: [...row.capabilities],
    createdBy: row.created_by,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/**
 * The organisation's bindings in the central store (docs/integrations.md). A binding that lost
 * its delegation for good (spec 5.4) is revoked, not deleted: it stays on record and never
 * works again; binding the slot anew makes a new one. Who may bind is decided by the caller
 * (`integration-rules.ts`).
 */
export class Bindings {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(central: Database, clock: Clock = systemClock) {
    this.#db = central;
    this.#clock = clock;
  }

  /**
   * Binds `slot` of `consumerAppId` to `connectionId`, replacing the slot's current binding
   * (the person's, for a `calling_user` slot) in the same transaction (`within`, when the
   * caller has one open).
   */
  async bind(fields: Omit<Binding, 'id' | 'createdAt'>, within?: Queryable): Promise<Binding> {
    const run = <T>(fn: (tx: Queryable) => Promise<T>) =>
      within ? fn(within) : this.#db.transaction(fn);
    return run(async (tx) => {
      await this.#unbind(tx, fields.consumerAppId, fields.slot, fields.personAccountId);
      const { rows } = await tx.query<Row>(
        `INSERT INTO platform.bindings
           (id, consumer_app_id, slot, account, person_account_id, connection_id, capabilities, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
        [
          newId('binding'),
          fields.consumerAppId,
          fields.slot,
          fields.account,
          fields.personAccountId,
          fields.connectionId,
          [...fields.capabilities],
          fields.createdBy,
          this.#clock.now(),
        ],
      );
      return toBinding(rows[0] as Row);
    });
  }

  /** The live binding of `slot` (of `personAccountId`, for a `calling_user` slot), if any. */
  async find(
    consumerAppId: string,
    slot: string,
    personAccountId: string | null = null,
  ): Promise<Binding | undefined> {
    const { rows } = await this.#db.query<Row>(
      `SELECT ${COLUMNS} FROM platform.bindings
        WHERE consumer_app_id = $1 AND slot = $2 AND revoked_at IS NULL
          AND person_account_id IS NOT DISTINCT FROM $3::uuid`,
      [consumerAppId, slot, personAccountId],
    );
    return rows[0] ? toBinding(rows[0]) : undefined;
  }

  /** The live bindings of an app, by slot. */
  async list(consumerAppId: string): Promise<Binding[]> {
    const { rows } = await this.#db.query<Row>(
      `SELECT ${COLUMNS} FROM platform.bindings
        WHERE consumer_app_id = $1 AND revoked_at IS NULL ORDER BY slot, created_at`,
      [consumerAppId],
    );
    return rows.map(toBinding);
  }

  /** The live bindings of a connection, in every app. */
  async ofConnection(connectionId: string): Promise<Binding[]> {
    const { rows } = await this.#db.query<Row>(
      `SELECT ${COLUMNS} FROM platform.bindings
        WHERE connection_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
      [connectionId],
    );
    return rows.map(toBinding);
  }

  /** Removes the live binding of `slot`; `false` when there was none. */
  async unbind(
    consumerAppId: string,
    slot: string,
    personAccountId: string | null = null,
  ): Promise<boolean> {
    return this.#unbind(this.#db, consumerAppId, slot, personAccountId);
  }

  async #unbind(
    db: Queryable,
    consumerAppId: string,
    slot: string,
    personAccountId: string | null,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `DELETE FROM platform.bindings
        WHERE consumer_app_id = $1 AND slot = $2 AND revoked_at IS NULL
          AND person_account_id IS NOT DISTINCT FROM $3::uuid`,
      [consumerAppId, slot, personAccountId],
    );
    return rowCount > 0;
  }

  /** Revokes `id` for good: its personal delegation ended (spec 5.4). */
  async revoke(id: string): Promise<void> {
    await this.#db.query('UPDATE platform.bindings SET revoked_at = $2 WHERE id = $1', [
      id,
      this.#clock.now(),
    ]);
  }
}
