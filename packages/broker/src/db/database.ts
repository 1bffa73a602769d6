/**
 * The database interface the broker talks to, shared by the embedded PGlite (in a worker
 * thread) and a real PostgreSQL reached through `DATABASE_URL`. Everything above this file
 * (data routes, files, migrations) depends only on these types.
 */

/** One result of a query: the rows as plain objects and the number of rows affected. */
export interface QueryResult<Row = Record<string, unknown>> {
  readonly rows: Row[];
  /** Rows returned or affected (for `INSERT`/`UPDATE`/`DELETE` without `RETURNING`). */
  readonly rowCount: number;
}

/** Something that runs one parameterised statement (`$1`, `$2`, ...). */
export interface Queryable {
  /**
   * Runs one statement with positional parameters.
   *
   * @example
   * ```ts
   * const { rows } = await db.query<{ id: string }>('select id from todos where done = $1', [false]);
   * ```
   */
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>>;
}

/** The handle a transaction callback receives. */
export interface Transaction extends Queryable {
  /** Runs several statements separated by `;` without parameters, inside the transaction. */
  exec(sql: string): Promise<void>;
  /**
   * Holds the lock named `key` until the transaction ends, so transactions that take the same
   * key run one after another, in this broker or in others on the same PostgreSQL
   * (`pg_advisory_xact_lock`). On PGlite, one session in which a transaction already runs
   * alone, it sends nothing.
   */
  lock(key: string): Promise<void>;
}

/**
 * One connection held for the length of a {@link Database.session} callback: session-level
 * state such as `pg_advisory_lock` stays with it across its statements and transactions.
 */
export interface Session extends Queryable {
  /** Runs several statements separated by `;` without parameters. */
  exec(sql: string): Promise<void>;
  /** Runs `fn` inside `BEGIN` ... `COMMIT` on this connection, rolling back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** The broker's connection to its database. */
export interface Database extends Queryable {
  /** `pglite` for the embedded database, `postgres` for a server reached by URL. */
  readonly kind: 'pglite' | 'postgres';
  /** Runs several statements separated by `;` without parameters (migrations, bootstrap). */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` inside `BEGIN` ... `COMMIT`, rolling back when it throws. Use the `tx` argument
   * for every statement of the transaction: on PGlite the database is one session, so calls on
   * the outer `Database` wait until the transaction ends (calling it from inside `fn` would
   * wait forever).
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` on one connection held until it settles, for work that needs session-level state
   * across several transactions (the platform schema's advisory lock). On PostgreSQL the
   * connection leaves the pool meanwhile and is closed, not reused, when `fn` throws (so no lock
   * or setting leaks); on PGlite it is the one session, and calls on the outer `Database` wait
   * until `fn` settles (use the `session` argument inside it).
   */
  session<T>(fn: (session: Session) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` while no other `exclusive` call with the same `key` runs, for a check and a write
   * that must not interleave with another's (an insert under a limit the same statement counts).
   * On PostgreSQL it is a transaction holding `key` ({@link Transaction.lock}). On PGlite,
   * where statements already run one at a time, `fn` holds the one session without `BEGIN` and
   * `COMMIT`, which saves their work on every call; each statement then commits by itself, so
   * `fn` must write with one statement at most.
   */
  exclusive<T>(key: string, fn: (queries: Queryable) => Promise<T>): Promise<T>;
  /**
   * This database, with statements that go before the others waiting their turn where the
   * database is one session (PGlite): for short bookkeeping that frees work others wait for,
   * such as a job worker's claims and completions, which would otherwise queue behind every
   * enqueue. On PostgreSQL, where statements run side by side, the database itself.
   */
  ahead(): Database;
  /**
   * `LISTEN channel`: calls `onNotify` with the payload of every `NOTIFY` on it, from this
   * broker or any other on the same database, once each, after the notifying transaction
   * commits. Resolves once listening, to a function that stops. Absent on a database that
   * cannot listen.
   */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Closes the connection (stops the worker thread or ends the pool). */
  close(): Promise<void>;
}

/** The fields of a PostgreSQL error that the broker maps to platform error codes. */
export interface DatabaseErrorFields {
  /** SQLSTATE, for example `23505` for a unique violation. */
  readonly sqlState: string | undefined;
  readonly detail?: string | undefined;
  readonly constraint?: string | undefined;
  readonly table?: string | undefined;
  readonly column?: string | undefined;
}

/** An error reported by PostgreSQL itself (as opposed to a broker failure). */
export class DatabaseError extends Error implements DatabaseErrorFields {
  override readonly name = 'DatabaseError';
  readonly sqlState: string | undefined;
  readonly detail: string | undefined;
  readonly constraint: string | undefined;
  readonly table: string | undefined;
  readonly column: string | undefined;

  constructor(message: string, fields: DatabaseErrorFields) {
    super(message);
    this.sqlState = fields.sqlState;
    this.detail = fields.detail;
    this.constraint = fields.constraint;
    this.table = fields.table;
    this.column = fields.column;
  }

  /** Reads the fields that both `pg` and PGlite put on their errors. */
  static from(error: unknown): DatabaseError | undefined {
    if (error instanceof DatabaseError) return error;
    if (typeof error !== 'object' || error === null) return undefined;
    const record = error as Record<string, unknown>;
    const code = record.code ?? record.sqlState;
    if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
    const text = (key: string): string | undefined =>
      typeof record[key] === 'string' ? (record[key] as string) : undefined;
    return new DatabaseError(text('message') ?? 'Database error', {
      sqlState: code,
      detail: text('detail'),
      constraint: text('constraint'),
      table: text('table'),
      column: text('column'),
    });
  }
}
