import type { QueryResult as PgQueryResult, Pool, PoolClient, types } from 'pg';
import { unavailableIfLost } from './connection-loss.ts';
import type { Database, Queryable, QueryResult, Session, Transaction } from './database.ts';
import { NotificationListener } from './notification-listener.ts';

// Same JSON-friendly shapes as the PGlite worker: int8 as a number when it is safe.
const INT8_OID = 20;
const parseInt8 = (value: string): number | string => {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
};

const typeParsersOf = (pgTypes: typeof types) => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? parseInt8
      : pgTypes.getTypeParser(oid, format)) as typeof types.getTypeParser,
});

function toResult<Row>(result: PgQueryResult): QueryResult<Row> {
  return {
    rows: result.rows as Row[],
    rowCount: Math.max(result.rowCount ?? 0, result.rows.length),
  };
}

/** The error listener of a checked-out connection (see `#checkOut`). */
const ignoreLostConnection = (): void => undefined;

/** A transaction whose `ROLLBACK` failed too: its connection must be dropped, not reused. */
class BrokenConnection extends Error {
  readonly original: unknown;
  constructor(original: unknown) {
    super('The connection could not roll back.', { cause: original });
    this.original = original;
  }
}

/**
 * Runs `fn` between `BEGIN` and `COMMIT` on `client`, rolling back when it throws. When the
 * rollback fails as well, throws {@link BrokenConnection} around the original error.
 */
async function transactionOn<T>(
  client: PoolClient,
  fn: (tx: Transaction) => Promise<T>,
): Promise<T> {
  let open = true;
  const tx: Transaction = {
    query: async <Row>(sql: string, params: readonly unknown[] = []) => {
      if (!open) throw new Error('The transaction has already ended.');
      return toResult<Row>(await client.query(sql, [...params]));
    },
    exec: async (sql: string) => {
      if (!open) throw new Error('The transaction has already ended.');
      await client.query(sql);
    },
    lock: async (key: string) => {
      if (!open) throw new Error('The transaction has already ended.');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
    },
  };
  try {
    await client.query('BEGIN');
    const result = await fn(tx);
    open = false;
    await client.query('COMMIT');
    return result;
  } catch (error) {
    open = false;
    try {
      await client.query('ROLLBACK');
    } catch {
      throw new BrokenConnection(error);
    }
    throw error;
  }
}

/**
 * A real PostgreSQL reached through a connection string (`DATABASE_URL`), behind the same
 * {@link Database} interface as the embedded PGlite. Transactions take their own pooled
 * connection, so several run in parallel and several brokers can share one database.
 *
 * @example
 * ```ts
 * const db = await PostgresDatabase.connect(process.env.DATABASE_URL!);
 * ```
 */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  #pool: Pool;
  /** Where the pool connects, for {@link replace} to connect again. */
  readonly connectionString: string;
  readonly #connect: () => Pool;
  #listener: NotificationListener | undefined;
  /** Set while {@link replace} runs: every call waits for it before taking a connection. */
  #paused: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  private constructor(connectionString: string, connect: () => Pool) {
    this.connectionString = connectionString;
    this.#connect = connect;
    this.#pool = connect();
  }

  /** The pool, once no {@link replace} runs. */
  async #ready(): Promise<Pool> {
    while (this.#paused) await this.#paused;
    return this.#pool;
  }

  /**
   * Replaces the database under the same connection string: calls made meanwhile wait; the pool
   * ends once the connections in use come back (their transactions finish on the old
   * database), `between` runs with no connection of this pool open (a restore renames another
   * database into this one's name), and a new pool connects. When `between` throws, the new pool
   * connects to whatever the name then holds (the old database, when `between` changed nothing).
   */
  async replace(between: () => Promise<void>): Promise<void> {
    while (this.#paused) await this.#paused;
    let done = () => {};
    this.#paused = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      await this.#pool.end();
      await between();
    } finally {
      this.#pool = this.#connect();
      this.#paused = undefined;
      done();
    }
  }

  /** Connects (and checks the connection with one round trip). */
  static async connect(connectionString: string, maxConnections = 10): Promise<PostgresDatabase> {
    // Loaded on the first connection: most runs use the embedded database and never need it.
    const { default: pg } = await import('pg');
    const db = new PostgresDatabase(connectionString, () => {
      const pool = new pg.Pool({
        connectionString,
        max: maxConnections,
        types: typeParsersOf(pg.types),
      });
      // An idle client that loses its server must not crash the broker.
      pool.on('error', () => undefined);
      return pool;
    });
    try {
      await db.query('select 1');
    } catch (error) {
      await db.#pool.end();
      throw error;
    }
    return db;
  }

  /**
   * The pool's connections right now: open, idle, and callers waiting for one (the metrics of
   * `platform serve` read it at each scrape, so it costs nothing between scrapes).
   */
  poolUse(): { total: number; idle: number; waiting: number } {
    const pool = this.#pool;
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  async query<Row = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<Row>> {
    try {
      return toResult<Row>(await (await this.#ready()).query(sql, [...params]));
    } catch (error) {
      throw unavailableIfLost(error);
    }
  }

  ahead(): Database {
    return this;
  }

  async exec(sql: string): Promise<void> {
    // Without parameters, pg uses the simple protocol, which accepts several statements.
    try {
      await (await this.#ready()).query(sql);
    } catch (error) {
      throw unavailableIfLost(error);
    }
  }

  /**
   * A connection of the pool for this caller alone. While it is out, the pool no longer listens
   * for its errors: a server that ends it (a restart's `57P01`, a dropped socket) between two
   * queries would emit an `error` nobody handles and end the process. The failure still reaches
   * the caller through its next query; the listener only keeps the process alive.
   */
  async #checkOut(): Promise<{ client: PoolClient; release: (destroy?: boolean) => void }> {
    const client = await (await this.#ready())
      .connect()
      .catch((error: unknown) => Promise.reject(unavailableIfLost(error)));
    client.on('error', ignoreLostConnection);
    return {
      client,
      release: (destroy = false) => {
        client.off('error', ignoreLostConnection);
        client.release(destroy);
      },
    };
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const { client, release } = await this.#checkOut();
    let result: T;
    try {
      result = await transactionOn(client, fn);
    } catch (error) {
      release(error instanceof BrokenConnection);
      throw unavailableIfLost(error instanceof BrokenConnection ? error.original : error);
    }
    release();
    return result;
  }

  async session<T>(fn: (session: Session) => Promise<T>): Promise<T> {
    const { client, release } = await this.#checkOut();
    const session: Session = {
      query: async <Row>(sql: string, params: readonly unknown[] = []) =>
        toResult<Row>(await client.query(sql, [...params])),
      exec: async (sql: string) => {
        await client.query(sql);
      },
      transaction: async (inner) => {
        try {
          return await transactionOn(client, inner);
        } catch (error) {
          throw error instanceof BrokenConnection ? error.original : error;
        }
      },
    };
    let result: T;
    try {
      result = await fn(session);
    } catch (error) {
      // Whatever the failure left on the connection (a lock, a setting) must not reach the pool.
      release(true);
      throw unavailableIfLost(error);
    }
    release();
    return result;
  }

  exclusive<T>(key: string, fn: (queries: Queryable) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => {
      await tx.lock(key);
      return fn(tx);
    });
  }

  /**
   * Listens on the database's one listening connection ({@link NotificationListener}), opened
   * with the first channel.
   */
  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    if (!this.#listener) {
      const { default: pg } = await import('pg');
      this.#listener ??= new NotificationListener(
        () => new pg.Client({ connectionString: this.connectionString }),
      );
    }
    return this.#listener.listen(channel, onNotify);
  }

  /** Ends the pool; closing again waits for the first close, as PGlite's close does. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#listener?.close();
      await (await this.#ready()).end();
    })();
    return this.#closing;
  }
}
