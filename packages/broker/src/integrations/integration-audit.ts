import type { Database } from '../db/database.ts';
import { GroupedWrites } from '../db/grouped-writes.ts';
import {
  inLastHourSql,
  type MinuteCount,
  minutesBeforeSql,
  type PerMinute,
  perMinute,
} from '../pages/dashboard/per-minute.ts';
import { AuditJournal, type JournalSegment } from './audit-journal.ts';

/** One integration call as the audit keeps it (spec 6.3): never its input, output or credentials. */
export interface IntegrationCallRecord {
  readonly at: string;
  /** The slot's integration; `null` for a call refused because the slot is not declared. */
  readonly integration: string | null;
  /** The app publishing it; `null` for a call refused before one was found. */
  readonly providerAppId: string | null;
  readonly consumerAppId: string;
  readonly slot: string;
  /** The connection used; `null` for a call answered by the contract's fake. */
  readonly connectionId: string | null;
  readonly operation: string;
  /** `development` under `platform dev`. */
  readonly environment: 'development' | 'production';
  /** `fake`: answered with the contract's declared output; `live`: the provider ran. */
  readonly mode: 'fake' | 'live';
  /** `ok`, or the error code the call ended with. */
  readonly result: string;
  readonly durationMs: number;
}

interface Row {
  at: Date | string;
  integration: string | null;
  provider_app_id: string | null;
  consumer_app_id: string;
  slot: string;
  connection_id: string | null;
  operation: string;
  environment: 'development' | 'production';
  mode: 'fake' | 'live';
  result: string;
  duration_ms: number;
}

/** A journaled row: the call and the id it was given before it reached the table. */
interface JournalRow extends IntegrationCallRecord {
  readonly id: number;
}

/** Rows a journal segment collects before it is written, at most. */
const SEGMENT_ROWS = 500;
/** How long a journaled row waits for others before it is written, at most. */
const SEGMENT_MS = 100;
/** Ids reserved from the table's sequence at a time, and the stock that asks for more. */
const ID_BLOCK = 512;
const ID_LOW = 128;

/**
 * The audit of integration calls, in the organisation's central store (docs/integrations.md,
 * "Audit"). No call answers before its row is durable. Without a journal (PostgreSQL, in-memory
 * stores) that means committed: rows of calls that finish together are written in one statement.
 * With a journal (the embedded central store, {@link IntegrationAudit.open}) it means one line
 * appended to a file beside the store, as durable as the store's own commits; the journaled rows
 * reach the table together, a few times a second, and a start writes what the previous process
 * left.
 */
export class IntegrationAudit {
  readonly #db: Database;
  readonly #writes: GroupedWrites<IntegrationCallRecord, undefined>;
  readonly #journal: AuditJournal | undefined;
  /** Sealed segments whose rows are not committed yet, oldest first. */
  #sealed: JournalSegment[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Ids reserved from the table's sequence, ascending. */
  #ids: number[] = [];
  #reserving: Promise<void> | undefined;

  /** The audit without a journal: each call waits for its row's commit. */
  constructor(central: Database, journal?: AuditJournal) {
    this.#db = central;
    this.#writes = new GroupedWrites((calls) => this.#insert(calls));
    this.#journal = journal;
  }

  /**
   * The audit with its journal in `journalDir`: first writes the rows a previous process
   * journaled but did not commit (a crash, or a store that failed), then reserves ids.
   */
  static async open(central: Database, journalDir: string): Promise<IntegrationAudit> {
    const { journal, left } = await AuditJournal.open(journalDir);
    const audit = new IntegrationAudit(central, journal);
    try {
      for (const segment of left) {
        for (let i = 0; i < segment.rows.length; i += SEGMENT_ROWS) {
          await audit.#insertJournaled(segment.rows.slice(i, i + SEGMENT_ROWS) as JournalRow[]);
        }
        journal.drop(segment);
      }
      await audit.#reserve();
    } catch (error) {
      journal.close();
      throw error;
    }
    return audit;
  }

  /**
   * Records one call; resolves once its row is durable, so an answer sent after it never
   * outlives a lost row: journaled, or else committed together with the rows of calls that
   * finished meanwhile.
   */
  async record(call: IntegrationCallRecord): Promise<void> {
    const journal = this.#journal;
    if (journal === undefined) {
      await this.#writes.add(call);
      return;
    }
    while (this.#ids.length === 0) await this.#reserve();
    const id = this.#ids.shift() as number;
    if (this.#ids.length < ID_LOW) void this.#reserve().catch(() => undefined);
    journal.append({ id, ...call } satisfies JournalRow);
    if (journal.size >= SEGMENT_ROWS) void this.flush().catch(() => undefined);
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush().catch(() => undefined), SEGMENT_MS);
      // Never what keeps a process alive: a broker that stops flushes at close.
      this.#timer.unref();
    }
  }

  /** Commits every journaled row to the table (a no-op without a journal). */
  flush(): Promise<void> {
    const next = this.#flushing.then(() => this.#flushNow());
    this.#flushing = next.catch(() => undefined);
    return next;
  }

  /** Commits the journaled rows and closes the journal. */
  async close(): Promise<void> {
    if (this.#journal === undefined) return;
    await this.flush();
    this.#journal.close();
  }

  async #flushNow(): Promise<void> {
    const journal = this.#journal;
    if (journal === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (journal.size > 0) this.#sealed.push(journal.seal());
    const sealed = this.#sealed;
    if (sealed.length === 0) return;
    // A failed write keeps its segments for the next flush; a row committed twice is one row
    // (its id is the table's key).
    await this.#insertJournaled(sealed.flatMap((segment) => segment.rows) as JournalRow[]);
    this.#sealed = [];
    for (const segment of sealed) journal.drop(segment);
  }

  async #reserve(): Promise<void> {
    this.#reserving ??= this.#db
      .query<{ id: number }>(
        `SELECT nextval(pg_get_serial_sequence('platform.integration_calls', 'id')) AS id
           FROM generate_series(1, $1)`,
        [ID_BLOCK],
      )
      .then(({ rows }) => {
        this.#ids.push(...rows.map((row) => Number(row.id)).sort((a, b) => a - b));
      })
      .finally(() => {
        this.#reserving = undefined;
      });
    return this.#reserving;
  }

  // One statement whatever the number of rows: its text never changes, so it stays one
  // prepared statement.
  async #insert(calls: readonly IntegrationCallRecord[]): Promise<undefined[]> {
    await this.#db.query(
      `INSERT INTO platform.integration_calls
         (at, integration, provider_app_id, consumer_app_id, slot, connection_id, operation, environment, mode, result, duration_ms)
       SELECT * FROM unnest(${COLUMNS})`,
      columns(calls),
    );
    return calls.map(() => undefined);
  }

  async #insertJournaled(rows: readonly JournalRow[]): Promise<void> {
    await this.#db.query(
      `INSERT INTO platform.integration_calls
         (at, integration, provider_app_id, consumer_app_id, slot, connection_id, operation, environment, mode, result, duration_ms, id)
       SELECT * FROM unnest(${COLUMNS}, $12::bigint[])
       ON CONFLICT (id) DO NOTHING`,
      [...columns(rows), rows.map((row) => row.id)],
    );
  }

  /** The latest calls an app made or served, newest first (the journaled ones included). */
  async list(appId: string, limit = 100): Promise<IntegrationCallRecord[]> {
    await this.flush();
    const { rows } = await this.#db.query<Row>(
      `SELECT at, integration, provider_app_id, consumer_app_id, slot, connection_id, operation,
              environment, mode, result, duration_ms
         FROM platform.integration_calls
        WHERE consumer_app_id = $1 OR provider_app_id = $1
        ORDER BY at DESC, id DESC LIMIT $2`,
      [appId, limit],
    );
    return rows.map((row) => ({
      at: new Date(row.at).toISOString(),
      integration: row.integration,
      providerAppId: row.provider_app_id,
      consumerAppId: row.consumer_app_id,
      slot: row.slot,
      connectionId: row.connection_id,
      operation: row.operation,
      environment: row.environment,
      mode: row.mode,
      result: row.result,
      durationMs: row.duration_ms,
    }));
  }

  /**
   * The calls an app made or served in each minute of the hour before `until` (the journaled
   * ones included): `ok` ones and `failed` ones (any other result). Counted in SQL; no input,
   * output or connection is read.
   */
  async perMinute(appId: string, until: Date): Promise<PerMinute<'ok' | 'failed'>> {
    await this.flush();
    const { rows } = await this.#db.query<MinuteCount>(
      `SELECT ${minutesBeforeSql('at', 2)} AS ago,
              CASE WHEN result = 'ok' THEN 'ok' ELSE 'failed' END AS series,
              count(*)::int AS count
         FROM platform.integration_calls
        WHERE (consumer_app_id = $1 OR provider_app_id = $1) AND ${inLastHourSql('at', 2)}
        GROUP BY 1, 2`,
      [appId, until.toISOString()],
    );
    return perMinute(until, ['ok', 'failed'], rows);
  }
}

const COLUMNS = `$1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
  $7::text[], $8::text[], $9::text[], $10::text[], $11::int[]`;

// The records as the eleven arrays of COLUMNS.
function columns(calls: readonly IntegrationCallRecord[]): unknown[][] {
  const column = <T>(pick: (call: IntegrationCallRecord) => T): T[] => calls.map(pick);
  return [
    column((call) => call.at),
    column((call) => call.integration),
    column((call) => call.providerAppId),
    column((call) => call.consumerAppId),
    column((call) => call.slot),
    column((call) => call.connectionId),
    column((call) => call.operation),
    column((call) => call.environment),
    column((call) => call.mode),
    column((call) => call.result),
    column((call) => call.durationMs),
  ];
}
