import type { Database } from '../db/database.ts';
import { REALTIME_NOTIFY_CHANNEL } from './realtime-schema.ts';

/** One message of the bus: what `realtime_messages` holds. */
export interface BusMessage {
  /** Its sequence number: ascending within a channel, unique across the database. */
  readonly id: number;
  readonly channel: string;
  readonly kind: 'broadcast' | 'presence' | 'change';
  readonly body: Record<string, unknown>;
}

/**
 * Carries realtime messages between the brokers of one database, each message once to each
 * broker: a message is a row of `platform.realtime_messages` and a `NOTIFY` of its id (an id,
 * so no payload meets `NOTIFY`'s 8,000-byte limit). Every broker `LISTEN`s and reads the rows
 * whose ids arrive, batched while a read is under way. PostgreSQL delivers a notification once
 * per listening session and only after its transaction commits, so a row change whose
 * transaction rolls back is never seen, and each broker hands each message to its own sockets
 * once.
 */
export class RealtimeBus {
  readonly #db: Database;
  readonly #deliver: (message: BusMessage) => void;
  #waiting: number[] = [];
  #reading = false;
  #stop: (() => Promise<void>) | undefined;

  private constructor(db: Database, deliver: (message: BusMessage) => void) {
    this.#db = db;
    this.#deliver = deliver;
  }

  /** Starts listening; `undefined` when the database cannot listen. */
  static async start(
    db: Database,
    deliver: (message: BusMessage) => void,
  ): Promise<RealtimeBus | undefined> {
    if (db.listen === undefined) return undefined;
    const bus = new RealtimeBus(db, deliver);
    bus.#stop = await db.listen(REALTIME_NOTIFY_CHANNEL, (payload) => bus.#arrived(payload));
    return bus;
  }

  /** Records a message and notifies every broker; resolves to its sequence number. */
  async publish(
    channel: string,
    kind: BusMessage['kind'],
    body: Record<string, unknown>,
  ): Promise<number> {
    const { rows } = await this.#db.query<{ id: number }>(
      `WITH m AS (
         INSERT INTO platform.realtime_messages (channel, kind, body) VALUES ($1, $2, $3::jsonb) RETURNING id
       )
       SELECT id, pg_notify('${REALTIME_NOTIFY_CHANNEL}', id::text) FROM m`,
      [channel, kind, JSON.stringify(body)],
    );
    return Number(rows[0]?.id);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.#stop?.();
  }

  #arrived(payload: string): void {
    const id = Number(payload);
    if (!Number.isSafeInteger(id)) return;
    this.#waiting.push(id);
    if (!this.#reading) void this.#read();
  }

  async #read(): Promise<void> {
    this.#reading = true;
    try {
      while (this.#waiting.length > 0) {
        const ids = this.#waiting;
        this.#waiting = [];
        const { rows } = await this.#db.query<BusMessage>(
          `SELECT id, channel, kind, body FROM platform.realtime_messages
            WHERE id = ANY($1::bigint[]) ORDER BY id`,
          [ids],
        );
        for (const row of rows) this.#deliver({ ...row, id: Number(row.id) });
      }
    } catch {
      // The database went away (stopping): the ids are lost with it.
    } finally {
      this.#reading = false;
    }
  }
}
