/**
 * Named prepared statements for the embedded database, kept per SQL text. PGlite's `query`
 * parses, describes and plans every statement again and crosses into WebAssembly six times to
 * do it; the broker sends the same few hundred statements all day. A statement seen before is
 * bound and executed in one call, and PostgreSQL's plan cache may skip planning it (a generic
 * plan, chosen by cost after five runs, as for any client that prepares).
 *
 * Runs in the PGlite worker thread; kept free of broker imports.
 */
import { type PGlite, parse, protocol } from '@electric-sql/pglite';

/** What one statement returned. */
export interface StatementResult {
  readonly rows: Record<string, unknown>[];
  readonly rowCount: number;
}

/** Statements worth preparing: reads and writes of rows, never DDL or settings. */
const ROW_STATEMENT = /^\s*(?:select|insert|update|delete|with)\b/i;

const serialize = protocol.serialize;

/** PostgreSQL's answer to a prepared statement whose result columns changed since. */
function isStalePlan(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === '0A000' &&
    String((error as { message?: unknown }).message).includes('cached plan must not change')
  );
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The prepared statements of one PGlite session, the least recently used closed beyond `max`.
 * Anything that may change the schema ({@link PreparedStatements.forget}) closes them all: a
 * statement prepared before a column was added would otherwise fail with "cached plan must not
 * change result type".
 */
export class PreparedStatements {
  readonly #db: PGlite;
  readonly #max: number;
  /** Statement name and parameter types by SQL text, in order of last use. */
  readonly #statements = new Map<string, { name: string; types: number[] }>();
  /** Names to close with the next message to the backend. */
  #closing: string[] = [];
  #next = 1;

  constructor(db: PGlite, max = 256) {
    this.#db = db;
    this.#max = max;
  }

  /** Runs one statement with positional parameters, serialised as PGlite's `query` does. */
  async query(sql: string, params: readonly unknown[]): Promise<StatementResult> {
    if (!ROW_STATEMENT.test(sql)) {
      this.forget();
      const result = await this.#db.query<Record<string, unknown>>(sql, [...params]);
      return {
        rows: result.rows,
        rowCount: Math.max(result.affectedRows ?? 0, result.rows.length),
      };
    }
    try {
      return await this.#run(sql, params);
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      // The schema changed under a prepared statement without passing here (DDL inside a
      // database function): prepare it again. Inside a transaction the error has already
      // aborted it, so only a statement on its own is run again.
      this.#close(sql);
      if (this.#db.isInTransaction()) throw error;
      return this.#run(sql, params);
    }
  }

  /** Closes every prepared statement (with the next statement sent): the schema may change. */
  forget(): void {
    for (const sql of [...this.#statements.keys()]) this.#close(sql);
  }

  async #run(sql: string, params: readonly unknown[]): Promise<StatementResult> {
    const statement = this.#statements.get(sql) ?? (await this.#prepare(sql));
    // Most recently used last, so the first entry is the one to close.
    this.#statements.delete(sql);
    this.#statements.set(sql, statement);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.#db.serializers[statement.types[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await this.#db.execProtocol(
      concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    const [result] = parse.parseResults(messages, this.#db.parsers);
    const rows = (result?.rows ?? []) as Record<string, unknown>[];
    return { rows, rowCount: Math.max(result?.affectedRows ?? 0, rows.length) };
  }

  #close(sql: string): void {
    const statement = this.#statements.get(sql);
    if (!statement) return;
    this.#statements.delete(sql);
    this.#closing.push(statement.name);
  }

  async #prepare(sql: string): Promise<{ name: string; types: number[] }> {
    while (this.#statements.size >= this.#max) {
      const [oldest] = this.#statements.keys();
      if (oldest === undefined) break;
      this.#close(oldest);
    }
    const closing = this.#closing.map((name) => serialize.close({ type: 'S', name }));
    this.#closing = [];
    const name = `platform_${this.#next++}`;
    // A failed parse (a syntax error, an aborted transaction) throws here and caches nothing.
    const { messages } = await this.#db.execProtocol(
      concat([
        ...closing,
        serialize.parse({ name, text: sql }),
        serialize.describe({ type: 'S', name }),
        serialize.sync(),
      ]),
    );
    const statement = { name, types: parse.parseDescribeStatementResults(messages) };
    this.#statements.set(sql, statement);
    return statement;
  }
}
